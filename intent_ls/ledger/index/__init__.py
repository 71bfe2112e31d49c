"""An index derived from the ledger: which records touched a hash, a file, a definition.

The JSONL ledger stays the single source of truth; this is a cache in SQLite at
``.orchestration/.local/trace-index.sqlite`` (never committed; delete it at will). It is
built once, then extended from the last indexed byte offset, so appends by other
processes are picked up by the next query without re-reading the ledger. The cache
remembers the offset and the hash of the last indexed line; if the ledger shrank or
that line changed, the ledger was rewritten (a merge, a rebase) and the index catches up in
place, or is rebuilt from scratch when most of it changed.

Hashes are indexed by their first 64 bits (:func:`intent_ls.common.hashing.hash_key`): a 1M
record ledger then fits in a small B-tree, and a false match needs a 2⁻⁶⁴ accident.

The package: :mod:`.schema` (the file's tables, and the shard a parallel cold build
leaves beside it), :mod:`.strings` (paths and names as ids), :mod:`.rows` and
:mod:`.fastpath` (what a ledger line gives), :mod:`.build` (inserting rows; the parallel
cold build),
:mod:`.realign` (after a merge or rebase), :mod:`.cache` (keeping the file up with the
ledger), :mod:`.queries` (:class:`TraceIndex`, what callers ask).
"""

from intent_ls.ledger.index.fastpath import fast_rows, line_rows
from intent_ls.ledger.index.queries import (
    BlameEntry,
    DefinitionStats,
    RecordRef,
    SummaryRow,
    TraceIndex,
)
from intent_ls.ledger.index.rows import Rows, extract_rows, json_rows
from intent_ls.ledger.index.schema import CACHE_RELPATH, Progress

__all__ = [
    "CACHE_RELPATH",
    "BlameEntry",
    "DefinitionStats",
    "Progress",
    "RecordRef",
    "Rows",
    "SummaryRow",
    "TraceIndex",
    "extract_rows",
    "fast_rows",
    "json_rows",
    "line_rows",
]
