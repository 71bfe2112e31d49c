"""``intent-ls context ID``: the handshake block an agent receives for an intent."""

from __future__ import annotations

import argparse

from intent_ls.cli.common import (
    add_workspace_arg,
    print_json,
    report_spec_problems,
    workspace_root,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "context",
        help="print an intent's <intent_context>",
        description="Print the <intent_context> XML (or JSON) for ID.",
    )
    parser.add_argument("intent_id", metavar="ID", help="the intent's id, as in the spec")
    add_workspace_arg(parser)
    parser.add_argument(
        "--format", choices=("xml", "json"), default="xml", help="output format (default: xml)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError
    from intent_ls.ledger.history import workspace_history
    from intent_ls.workspace.brain import lessons_for, read_brain
    from intent_ls.workspace.context import context_json, context_xml
    from intent_ls.workspace.discover import Workspace

    ws = Workspace(workspace_root(args))
    report_spec_problems(ws)
    intent = ws.spec().get(args.intent_id)
    if intent is None:
        known = ", ".join(ws.spec().ids) or "none"
        raise CliError(f"no intent '{args.intent_id}' (known: {known})")
    lessons = lessons_for(read_brain(ws.root), intent.id)
    history = workspace_history(ws.root, intent.id)
    if args.format == "json":
        print_json(context_json(intent, history=history, lessons=lessons))
    else:
        print(context_xml(intent, history=history, lessons=lessons), end="")
    return 0
