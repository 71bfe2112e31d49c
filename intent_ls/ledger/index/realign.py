"""Catching up with a ledger that changed other than by appending: a merge or a rebase.

Only what changed is indexed again: the indexed lines still at their offset (a prefix)
and those moved by a constant shift (a suffix) are found by binary search on their keys.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from intent_ls.common.hashing import bytes_hash
from intent_ls.ledger.index.build import PARALLEL_MIN, index_lines
from intent_ls.ledger.index.fastpath import line_rows
from intent_ls.ledger.index.schema import write_meta

_TAIL = 64 * 1024


def realign(
    db: sqlite3.Connection, ledger: Path, meta: dict[str, str], schemas: list[str]
) -> int | None:
    """Catches up with a ledger that changed other than by appending — a merge or a
    rebase put lines in the middle, or took the other side's lines first — by
    indexing only what changed: the indexed lines still at their offset (a prefix)
    and those moved by a constant shift (a suffix) are found by binary search on
    their keys, the rows in between are replaced by the lines now between them, and
    the suffix's offsets are shifted. New rows get ``seq`` after every existing one,
    so a reader that remembers the last ``seq`` it saw still sees them. Runs inside
    the caller's write transaction. Returns None when most of a large file changed
    (a parallel cold build is then faster). Trusts, like the append path, that lines
    are not rewritten in place: that is tampering, which ``trace verify`` reports.
    ``schemas``: the cache file's and its shards' (:mod:`.schema`); new lines go to the
    cache file."""
    every = " UNION ALL ".join(f"SELECT offset, lkey, seq FROM {s}.records" for s in schemas)
    rows = db.execute(every + " ORDER BY offset").fetchall()
    old_end = int(meta.get("offset", 0))
    try:
        f = ledger.open("rb")
    except FileNotFoundError:
        return None
    with f:
        new_end, head_start = _complete_end(f)
        shift = new_end - old_end

        def same(i: int, delta: int) -> bool:
            at, key, _ = rows[i]
            length = (rows[i + 1][0] if i + 1 < len(rows) else old_end) - at
            if key is None or at + delta < 0 or at + delta + length > new_end:
                return False
            f.seek(at + delta)
            line = f.read(length)
            return line.endswith(b"\n") and line_rows(0, 0, line[:-1])[0][8] == key

        first = _first(0, len(rows), lambda i: not same(i, 0))
        keep = _first(first, len(rows), lambda i: same(i, shift))
        f.seek(head_start)
        head_line = f.read(new_end - head_start)[:-1]
    start = rows[first][0] if first < len(rows) else old_end
    end = rows[keep][0] + shift if keep < len(rows) else new_end
    if end < start:
        keep, end = len(rows), new_end
    if new_end >= PARALLEL_MIN and end - start > new_end // 2:
        return None
    top = max((seq for _, _, seq in rows), default=0)  # never reuse a seq
    stale = [(seq,) for _, _, seq in rows[first:keep]]
    if stale:
        db.execute("CREATE TEMP TABLE IF NOT EXISTS gone(seq INTEGER PRIMARY KEY)")
        db.execute("DELETE FROM gone")
        db.executemany("INSERT INTO gone VALUES (?)", stale)
    for s in schemas:
        if stale:
            db.execute(f"DELETE FROM {s}.records WHERE seq IN (SELECT seq FROM temp.gone)")
            db.execute(f"DELETE FROM {s}.touches WHERE seq IN (SELECT seq FROM temp.gone)")
        if shift and keep < len(rows):
            db.execute(
                f"UPDATE {s}.records SET offset = offset + ? WHERE offset >= ?",
                (shift, rows[keep][0]),
            )
    added = index_lines(db, ledger, start, top, end, None)
    write_meta(
        db,
        {
            "offset": str(new_end),
            "seq": str(top + added),
            "head_start": str(head_start),
            "head_hash": bytes_hash(head_line),
        },
    )
    return added


def _first(lo: int, hi: int, pred: Callable[[int], bool]) -> int:
    """The least ``i`` in ``[lo, hi)`` with ``pred(i)`` (``hi`` if none), for a ``pred``
    that is false up to some point and true after it."""
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _complete_end(f: Any) -> tuple[int, int]:
    """(offset after the last complete line, start of that line) of an open ledger;
    (0, 0) when it has no complete line."""
    last = _rfind_newline(f, f.seek(0, os.SEEK_END))
    if last < 0:
        return 0, 0
    return last + 1, _rfind_newline(f, last) + 1


def _rfind_newline(f: Any, before: int) -> int:
    """Offset of the last newline before ``before``, or -1."""
    pos = before
    while pos > 0:
        step = min(_TAIL, pos)
        f.seek(pos - step)
        at = f.read(step).rfind(b"\n")
        if at >= 0:
            return pos - step + at
        pos -= step
    return -1
