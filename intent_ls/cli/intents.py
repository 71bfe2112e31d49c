"""``intent-ls intents``: the declared intents, their status and scope."""

from __future__ import annotations

import argparse

from intent_ls.cli.common import (
    add_format_arg,
    add_workspace_arg,
    print_json,
    report_spec_problems,
    workspace_root,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "intents",
        help="list declared intents",
        description="List the intents of the workspace's spec; '*' marks the selected one. "
        "Problems of the spec are reported on stderr; exits 1 when it has errors.",
    )
    add_workspace_arg(parser)
    add_format_arg(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.common.local_state import load_selection
    from intent_ls.workspace.discover import Workspace

    ws = Workspace(workspace_root(args))
    spec = ws.spec()
    errors = report_spec_problems(ws)
    active = load_selection(ws.root).get("intent_id")
    if args.format == "json":
        print_json(
            [
                {
                    "id": i.id,
                    "name": i.name,
                    "status": i.status.value,
                    "selectable": i.selectable,
                    "active": i.id == active,
                    "owned_scope": list(i.patterns),
                }
                for i in spec.intents
            ]
        )
    else:
        for i in spec.intents:
            mark = "*" if i.id == active else " "
            print(f"{mark} {i.id}\t{i.status.value}\t{i.name}\t{' '.join(i.patterns)}")
    return 1 if errors else 0
