"""``intent-ls map``: regenerate ``.orchestration/intent_map.md`` from the ledger."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from intent_ls.cli.common import (
    NO_SPEC_HINT,
    add_workspace_arg,
    check_ledger_file,
    report_spec_problems,
    workspace_root,
)

if TYPE_CHECKING:
    from intent_ls.workspace.discover import Workspace


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "map",
        help="regenerate .orchestration/intent_map.md from the trace ledger",
        description="Regenerate .orchestration/intent_map.md (intent → files → AST nodes) "
        "from .orchestration/agent_trace.jsonl. A folder with neither an intent spec nor a "
        "ledger is not governed: nothing is written there (exit 2).",
    )
    add_workspace_arg(parser)
    parser.set_defaults(func=run)


def load_intents(ws: Workspace) -> dict[str, Any]:
    """Intent id → IntentInfo from the spec; a broken spec still yields a map (of ids)."""
    from intent_ls.ledger.intentmap import IntentInfo

    if not ws.spec_path.is_file():
        print(
            f"intent-ls: warning: no intent spec at {ws.spec_path}; the map names the "
            "ledger's intents by id only",
            file=sys.stderr,
        )
        return {}
    report_spec_problems(ws)
    return {
        i.id: IntentInfo(i.name, str(i.status.value), tuple(i.patterns)) for i in ws.spec().intents
    }


def run(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError
    from intent_ls.ledger.index import TraceIndex
    from intent_ls.ledger.intentmap import write_intent_map
    from intent_ls.workspace.discover import Workspace

    root = workspace_root(args)
    ws = Workspace(root)
    ledger = check_ledger_file(root)
    if not ws.spec_path.is_file() and not ledger.exists():
        raise CliError(
            f"no intent spec at {ws.spec_path} and no ledger: this folder is not governed, "
            f"so it has no map {NO_SPEC_HINT}"
        )
    intents = load_intents(ws)
    index = TraceIndex.for_workspace(root)
    try:
        path, changed = write_intent_map(root, index, intents)
    finally:
        index.close()
    print(f"{path.relative_to(root).as_posix()}: {'written' if changed else 'unchanged'}")
    return 0
