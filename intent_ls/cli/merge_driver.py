"""``intent-ls merge-driver %O %A %B``: git's merge driver for the ledger.

Git runs it (configured by ``intent-ls init``) whenever both sides of a merge, rebase or
cherry-pick changed ``agent_trace.jsonl``; it writes the union of both sides, joined by
a merge record, into ``%A`` and exits 0. With ``--derived`` (``intent_map.md``) it keeps
our side: the file is regenerated from the ledger, so any side is as good as another.
Exit 1 (git then reports a conflict, losing nothing) only if the files cannot be read or
written. Imports only the ledger core: git may run it thousands of times in a rebase.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "merge-driver",
        help="git merge driver for the ledger (set up by `intent-ls init`)",
        description="Merge three versions of .orchestration/agent_trace.jsonl into OURS.",
    )
    parser.add_argument("base", metavar="BASE", type=Path, help="the common ancestor (%%O)")
    parser.add_argument("ours", metavar="OURS", type=Path, help="our version; the result (%%A)")
    parser.add_argument("theirs", metavar="THEIRS", type=Path, help="their version (%%B)")
    parser.add_argument(
        "--derived",
        action="store_true",
        help="the file is derived data (intent_map.md): keep ours, it is regenerated",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.derived:
        return 0
    from intent_ls.ledger.merge import merge_versions

    try:
        merged = merge_versions(
            args.base.read_bytes(), args.ours.read_bytes(), args.theirs.read_bytes()
        )
        tmp = args.ours.with_name(f".{args.ours.name}.{os.getpid()}.merge")
        tmp.write_bytes(merged)
        os.replace(tmp, args.ours)
    except OSError as exc:
        print(f"intent-ls merge-driver: {exc}", file=sys.stderr)
        return 1
    return 0
