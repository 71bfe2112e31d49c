"""``intent-ls intents``: the declared intents, their status and scope."""

from __future__ import annotations

import argparse

from intent_ls.cli.common import add_format_arg, add_workspace_arg, print_json, workspace_root


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "intents",
        help="list declared intents",
        description="List the intents of the workspace's spec.",
    )
    add_workspace_arg(parser)
    add_format_arg(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.local_state import load_selection
    from intent_ls.workspace import Workspace

    ws = Workspace(workspace_root(args))
    result = ws.spec_result()
    spec = ws.spec()
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
    return 1 if result.spec is None else 0
