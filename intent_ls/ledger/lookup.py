"""A file's records for the front doors without a live index: hooks and one-shot verbs.

A hook has about 100 ms. When the shared index cache is current, or nearly (another
process built it), asking it is the fast way; on a fresh clone of a big ledger it does not
exist yet, and building it would take seconds — so the records are read from the ledger
itself instead (backwards, parsing only the lines that name the file: :mod:`tail`), the
same records the index would name, without building anything.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from intent_ls.ledger.index import TraceIndex
from intent_ls.ledger.store import LEDGER_RELPATH
from intent_ls.ledger.tail import records_touching

#: Catching up at most this much is cheaper than reading the ledger for the file.
CATCH_UP_LIMIT = 4 * 1024 * 1024


def path_records(root: Path, rel: str, limit: int | None = None) -> list[dict[str, Any]]:
    """The newest ``limit`` records (all when None) touching ``rel``, newest first, as
    :meth:`TraceIndex.records_for_path` names them; none without a ledger."""
    if not (root / LEDGER_RELPATH).is_file():
        return []
    index = TraceIndex.for_workspace(root)
    try:
        backlog = index.backlog()
        if backlog is None:  # a build from scratch: of the whole ledger
            backlog = (root / LEDGER_RELPATH).stat().st_size
        if backlog <= CATCH_UP_LIMIT:
            index.refresh()
            return [index.load_record(ref) for ref in index.records_for_path(rel, limit)]
    finally:
        index.close()
    found, _ = records_touching(
        root / LEDGER_RELPATH, rel, sys.maxsize if limit is None else limit, None
    )
    return [record for _, record in found]
