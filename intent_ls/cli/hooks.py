"""``intent-ls hooks install AGENT [--workspace DIR] [--uninstall]``, for every agent of
:mod:`intent_ls.agents.registry`."""

from __future__ import annotations

import argparse

from intent_ls.agents import registry
from intent_ls.cli.common import add_workspace_arg, workspace_root


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "hooks",
        help="install intent-ls into a coding agent's project settings",
        description="Manage the agent integrations (hooks + MCP server).",
    )
    verbs = parser.add_subparsers(
        dest="hooks_verb", metavar="VERB", required=True, help="what to do (install)"
    )
    install = verbs.add_parser(
        "install",
        help="merge intent-ls's hooks and MCP server into an agent's project settings",
        description="Idempotently add (or with --uninstall remove) intent-ls's hooks and "
        "MCP server in the agent's project settings, keeping every other entry; prints "
        "each change.",
    )
    install.add_argument("agent", choices=registry.names(), help="the coding agent to set up")
    add_workspace_arg(install)
    install.add_argument("--uninstall", action="store_true", help="remove intent-ls's entries")
    install.set_defaults(func=run_install)


def run_install(args: argparse.Namespace) -> int:
    from intent_ls.agents.install import InstallError, installed_inside
    from intent_ls.cli.errors import CliError

    root = workspace_root(args)
    inside = None if args.uninstall else installed_inside(root)
    if inside is not None:
        raise CliError(
            f"this intent-ls lives inside the workspace ({inside}), where the agent can "
            "change it: its hooks would run whatever the agent put there. Install intent-ls "
            "outside every workspace (`pipx install intent-ls` or `uv tool install intent-ls`) "
            "and run `hooks install` with that one."
        )
    try:
        changes = registry.get(args.agent).install(root, args.uninstall)
    except InstallError as exc:
        raise CliError(str(exc)) from None
    if not args.uninstall:
        from intent_ls.agents import install_record

        install_record.record()
    for change in changes:
        print(change)
    if not changes:
        print(
            f"{args.agent}: already {'uninstalled' if args.uninstall else 'installed'}; "
            "nothing changed"
        )
    return 0
