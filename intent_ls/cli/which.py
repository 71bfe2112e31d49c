"""``intent-ls which PATH``: who owns a path, and whether it is governed at all."""

from __future__ import annotations

import argparse
from pathlib import Path

from intent_ls.cli.common import add_format_arg, add_workspace_arg, print_json, workspace_root


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "which",
        help="which intents own a path",
        description="Show the intents owning PATH, or why it is not governed.",
    )
    parser.add_argument("path", metavar="PATH", type=Path)
    add_workspace_arg(parser)
    add_format_arg(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.workspace import Workspace

    ws = Workspace(workspace_root(args))
    path: Path = args.path
    if not path.is_absolute():
        path = Path.cwd() / path
    info = ws.classify(path)
    owners = ws.scope().owners(info.rel) if info.governed and info.rel else ()
    if args.format == "json":
        print_json(
            {
                "path": info.rel or str(args.path),
                "kind": info.kind.value,
                "governed": info.governed,
                "reason": info.reason,
                "owners": [{"id": i.id, "name": i.name, "status": i.status.value} for i in owners],
            }
        )
        return 0
    shown = info.rel or str(args.path)
    if not info.governed:
        print(f"{shown}: not governed: {info.kind.value} ({info.reason})")
    elif not owners:
        print(f"{shown}: governed, owned by no intent")
    else:
        for i in owners:
            print(f"{shown}: {i.id}\t{i.status.value}\t{i.name}")
    return 0
