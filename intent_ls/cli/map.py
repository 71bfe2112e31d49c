"""``intent-ls map``: regenerate ``.orchestration/intent_map.md`` from the ledger."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from intent_ls.cli.common import add_workspace_arg, workspace_root


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "map", help="regenerate .orchestration/intent_map.md from the trace ledger"
    )
    add_workspace_arg(parser)
    parser.set_defaults(func=run)


def load_intents(root: Path) -> dict[str, Any]:
    """Intent id → IntentInfo from the spec; a broken spec still yields a map (of ids)."""
    from intent_ls.ledger.intentmap import IntentInfo
    from intent_ls.spec import SPEC_RELPATH, load_spec_file

    result = load_spec_file(root / SPEC_RELPATH)
    if result.spec is None:
        for problem in result.problems:
            print(f"intent-ls: warning: {problem.message}", file=sys.stderr)
        return {}
    intents = result.spec.intents
    return {i.id: IntentInfo(i.name, str(i.status.value), tuple(i.patterns)) for i in intents}


def run(args: argparse.Namespace) -> int:
    from intent_ls.ledger.index import TraceIndex
    from intent_ls.ledger.intentmap import write_intent_map

    root = workspace_root(args)
    index = TraceIndex.for_workspace(root)
    try:
        path, changed = write_intent_map(root, index, load_intents(root))
    finally:
        index.close()
    print(f"{path.relative_to(root).as_posix()}: {'written' if changed else 'unchanged'}")
    return 0
