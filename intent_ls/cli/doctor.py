"""``intent-ls doctor``: check the repository, this clone, the agents' hooks (proved by
running them) and the editors configured here; read-only."""

from __future__ import annotations

import argparse

from intent_ls.cli.common import add_format_arg, add_workspace_arg, print_json, workspace_root


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="prove the set-up: spec, ledger, merge driver, agent hooks and MCP servers",
        description="Check the spec, the ledger and this clone's merge driver, and for every "
        "coding agent set up here run its intent-ls hooks exactly as the agent would (a "
        "write they must refuse, a destructive command they must hold) and start its MCP "
        "server. One line per check with the next step; changes nothing. Exit 0 when every "
        "check passes, 1 when one fails, 2 when doctor cannot run.",
    )
    add_workspace_arg(parser)
    add_format_arg(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.doctor.report import as_json, passed, text_line
    from intent_ls.doctor.run import run_doctor

    root = workspace_root(args)
    checks = run_doctor(root)
    if args.format == "json":
        print_json(as_json(str(root), checks))
    else:
        for check in checks:
            print(text_line(check))
    return 0 if passed(checks) else 1
