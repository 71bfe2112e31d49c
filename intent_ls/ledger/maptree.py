"""The intent map as data: intents → files → AST nodes, for editors' tree views.

The same aggregate as ``intent_map.md`` (:mod:`intent_ls.ledger.intentmap`) in a shape a
client renders without parsing Markdown. Intents come in the spec's order (the order the
user wrote them), then ids the ledger knows but the spec no longer has.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from intent_ls.ledger.index import SummaryRow
from intent_ls.ledger.intentmap import IntentInfo


def intent_tree(
    rows: Sequence[SummaryRow], intents: Mapping[str, IntentInfo]
) -> list[dict[str, Any]]:
    """One entry per intent with its recorded files, each with its changed definitions.

    A file's own figures come from its file-level row (every record that touched it);
    its ``nodes`` are the definitions records named, sorted by name."""
    by_intent: dict[str, dict[str, list[SummaryRow]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        by_intent[row.intent_id][row.path].append(row)
    ids = [*intents, *sorted(set(by_intent) - set(intents))]
    return [
        _intent_entry(intent_id, intents.get(intent_id), by_intent.get(intent_id, {}))
        for intent_id in ids
    ]


def _intent_entry(
    intent_id: str, info: IntentInfo | None, by_path: Mapping[str, list[SummaryRow]]
) -> dict[str, Any]:
    return {
        "id": intent_id,
        "name": info.name if info else None,
        "status": info.status if info else None,
        "inSpec": info is not None,
        "files": [_file_entry(path, rows) for path, rows in sorted(by_path.items())],
    }


def _file_entry(path: str, rows: list[SummaryRow]) -> dict[str, Any]:
    """A file's figures: its file-level row's if it has one, else its definitions' summed."""
    whole = next((r for r in rows if r.name is None), None)
    nodes = sorted((r for r in rows if r.name is not None), key=lambda r: r.name or "")
    return {
        "path": path,
        "changes": whole.changes if whole else sum(r.changes for r in nodes),
        "last": whole.last_timestamp if whole else max(r.last_timestamp for r in nodes),
        "contributors": list(whole.contributors if whole else ()),
        "nodes": [
            {"name": r.name, "kind": r.kind, "changes": r.changes, "last": r.last_timestamp}
            for r in nodes
        ],
    }
