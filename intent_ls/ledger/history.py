"""An intent's recent recorded mutations, for the ``recent_history`` of its context.

An agent resuming an intent needs to know what was already changed under it (which
file, which definitions, what kind of change, when) without replaying the ledger; the
last few mutation records say that. They come from the trace index (newest first) and
are read back from the ledger itself, the source of truth — or, when no index is ready
(a fresh clone of a big ledger), from the ledger read backwards (:mod:`tail`), which
finds the same records exactly as long as they are recent enough.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from intent_ls.ledger.index import TraceIndex, json_rows
from intent_ls.ledger.records import intent_meta
from intent_ls.ledger.store import LEDGER_RELPATH
from intent_ls.ledger.tail import TailScan

#: How many mutations the handshake carries: enough to resume, short enough to read.
RECENT_LIMIT = 5
#: How far back from its end the ledger is read for a handshake without the index:
#: some 50,000 records, read in tens of milliseconds.
TAIL_BYTES = 64 * 1024 * 1024


def recent_history(
    index: TraceIndex, intent_id: str, limit: int = RECENT_LIMIT
) -> list[dict[str, str]]:
    """The intent's last ``limit`` mutations, newest first, as ``<change>`` attributes
    (``file``, ``nodes``, ``mutation_class``, ``when``) plus a one-line ``summary``."""
    out: list[dict[str, str]] = []
    fetch = limit * 2
    while True:
        refs = index.records_for_intent(intent_id, fetch)
        out = [
            entry
            for ref in refs
            if ref.kind == "mutation"
            for entry in _entries(index.load_record(ref))
        ][:limit]
        if len(out) >= limit or len(refs) < fetch:
            return out
        fetch *= 4


def tail_history(
    ledger: Path, intent_id: str, limit: int = RECENT_LIMIT, max_bytes: int | None = TAIL_BYTES
) -> tuple[list[dict[str, str]], bool]:
    """:func:`recent_history` read backwards from the end of ``ledger``, without the index:
    the same records, judged by the same rows the index would hold for them; and whether
    that is the whole answer (False when ``max_bytes`` were read first, with fewer than
    ``limit`` changes found: what was found is then the newest part of it)."""
    scan = TailScan(ledger, intent_id.encode("utf-8", "surrogatepass"), max_bytes)
    out: list[dict[str, str]] = []
    for offset, line in scan.lines():
        row = json_rows(0, offset, line)[0]
        if row[3] != intent_id or row[7] != "mutation":
            continue
        out.extend(_entries(json.loads(line)))
        if len(out) >= limit:
            return out[:limit], True
    return out, scan.complete


def workspace_history(
    root: Path, intent_id: str, limit: int = RECENT_LIMIT
) -> list[dict[str, str]]:
    """:func:`recent_history` for a workspace (no ledger yet: no history); the index is
    only opened (and on a fresh clone built) when the ledger's tail does not answer."""
    if not (root / LEDGER_RELPATH).is_file():
        return []
    found, complete = tail_history(root / LEDGER_RELPATH, intent_id, limit)
    if complete:
        return found
    index = TraceIndex.for_workspace(root)
    try:
        index.refresh()
        return recent_history(index, intent_id, limit)
    finally:
        index.close()


def _entries(record: dict[str, Any]) -> list[dict[str, str]]:
    meta = intent_meta(record)
    mclass = str(meta.get("mutation_class") or "UNKNOWN")
    when = str(record.get("timestamp") or "")
    out = []
    for file in record.get("files") or ():
        if not isinstance(file, dict) or not isinstance(file.get("path"), str):
            continue
        path = file["path"]
        nodes = [
            f"{n.get('kind')} {n.get('name')}"
            for n in meta.get("ast_nodes") or ()
            if isinstance(n, dict) and n.get("path", path) == path and n.get("name")
        ]
        listed = ", ".join(dict.fromkeys(nodes))
        summary = f"{mclass} {path}" + (f": {listed}" if listed else "")
        out.append(
            {
                "file": path,
                "nodes": listed,
                "mutation_class": mclass,
                "when": when,
                "summary": summary,
            }
        )
    return out
