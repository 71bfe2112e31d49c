"""``intent-ls mcp [--workspace DIR]``: the MCP server agents call for the handshake."""

from __future__ import annotations

import argparse

from intent_ls.cli.common import add_workspace_arg, workspace_root


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="MCP server (stdio): select_active_intent, list_intents, record_lesson, "
        "stop_background_processes",
        description="Serve the intent handshake to coding agents over MCP on stdio.",
    )
    add_workspace_arg(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.agents.mcp import serve

    return serve(workspace_root(args))
