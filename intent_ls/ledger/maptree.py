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
    out = []
    for intent_id in ids:
        info = intents.get(intent_id)
        files = []
        for path, file_rows in sorted(by_intent.get(intent_id, {}).items()):
            whole = next((r for r in file_rows if r.name is None), None)
            nodes = sorted((r for r in file_rows if r.name is not None), key=lambda r: r.name or "")
            files.append(
                {
                    "path": path,
                    "changes": whole.changes if whole else sum(r.changes for r in nodes),
                    "last": whole.last_timestamp if whole else max(r.last_timestamp for r in nodes),
                    "contributors": list(whole.contributors if whole else ()),
                    "nodes": [
                        {
                            "name": r.name,
                            "kind": r.kind,
                            "changes": r.changes,
                            "last": r.last_timestamp,
                        }
                        for r in nodes
                    ],
                }
            )
        out.append(
            {
                "id": intent_id,
                "name": info.name if info else None,
                "status": info.status if info else None,
                "inSpec": info is not None,
                "files": files,
            }
        )
    return out
