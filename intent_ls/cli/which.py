"""``intent-ls which PATH``: who owns a path, and whether it is governed at all."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from intent_ls.cli.common import (
    add_format_arg,
    add_workspace_arg,
    print_json,
    report_spec_problems,
    typed_path,
    workspace_root,
)

if TYPE_CHECKING:
    from intent_ls.spec.model import Intent
    from intent_ls.workspace.discover import Workspace


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "which",
        help="which intents own a path",
        description="Show the intents owning PATH, or why it is not governed. A directory "
        "is owned by the intents that own everything in it (e.g. 'src/billing' under "
        "'src/billing/**'). Exits 1 when the spec has errors (listed on stderr): intents "
        "they affect are missing from the answer.",
    )
    parser.add_argument(
        "path",
        metavar="PATH",
        help="a file or directory, relative to the current directory (to the workspace "
        "root when the current directory is outside it), or absolute",
    )
    add_workspace_arg(parser)
    add_format_arg(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.workspace.discover import Workspace

    ws = Workspace(workspace_root(args))
    typed: str = args.path
    path = typed_path(typed, ws.root)
    is_dir = typed.endswith(("/", os.sep)) or path.is_dir()
    missing = _missing_spec(ws)
    info = ws.classify(path)
    shown = (info.rel or typed) + ("/" if is_dir and info.rel else "")
    errors = report_spec_problems(ws)
    if missing:
        governed, kind = False, "no-spec"
        reason = f"the workspace has no usable intent spec ({missing})"
    else:
        governed, kind, reason = info.governed, info.kind.value, info.reason
    probe = f"{info.rel}/" if is_dir else info.rel
    owners = ws.scope().owners(probe) if governed and probe else ()
    if args.format == "json":
        print_json(
            {
                "path": shown,
                "kind": kind,
                "governed": governed,
                "reason": reason,
                "owners": [{"id": i.id, "name": i.name, "status": i.status.value} for i in owners],
            }
        )
    elif not governed:
        print(f"{shown}: not governed: {reason if missing else f'{kind} ({reason})'}")
    else:
        _print_owners(shown, owners, bool(errors))
    return 1 if errors else 0


def _missing_spec(ws: Workspace) -> str | None:
    """Why the workspace has no spec to answer from, or None."""
    from intent_ls.spec.load import SPEC_NOT_FOUND

    missing = [p for p in ws.spec_result().problems if p.code == SPEC_NOT_FOUND]
    return missing[0].message if missing else None


def _print_owners(shown: str, owners: Sequence[Intent], errors: bool) -> None:
    if not owners and errors:
        print(f"{shown}: governed, owned by no valid intent (the spec has errors, see stderr)")
    elif not owners:
        print(f"{shown}: governed, owned by no intent")
    for i in owners:
        print(f"{shown}: {i.id}\t{i.status.value}\t{i.name}")
