"""The cold build's C writer (``_bulk.c``), when the install compiled it.

At a million records the Python that turns decoded records into rows and the sqlite3
module's binding of their values were half of a cold build's CPU; the C writer reads the
same msgspec structs and binds the rows straight to SQLite. It is optional: built when
the install finds a C compiler and SQLite's headers (``setup.py``), and
``INTENT_LS_PURE_PYTHON=1`` turns it off (to compare the two, or to rule it out). The
rows it writes are exactly the Python writer's: it leaves any line it cannot read the
same way for certain to :func:`~intent_ls.ledger.index.fastpath.fast_block`, one line
at a time, and writes the rows that gives in their place.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from intent_ls.ledger.index import fastpath
from intent_ls.ledger.index.rows import FILE_ROW, URN
from intent_ls.ledger.index.schema import RECORD_WIDTH, ROWS_PER_INSERT, TOUCH_WIDTH, insert_sql
from intent_ls.ledger.index.strings import Strings

try:
    # The extension module itself, not the package around it (which imports this one).
    import intent_ls.ledger.index._bulk as _bulk
except ImportError:  # not compiled: the Python writer does it all
    _bulk = None


#: The statements the C writer binds rows to, the Python writer's own: for ``records`` and
#: ``touches``, (a group of rows, one row).
INSERTS = tuple(
    (insert_sql(table, width, ROWS_PER_INSERT), insert_sql(table, width, 1))
    for table, width in (("records", RECORD_WIDTH), ("touches", TOUCH_WIDTH))
)


def compiled() -> bool:
    """Whether the install built the C writer."""
    return _bulk is not None


def available() -> bool:
    """Whether cold builds use it: compiled, and not turned off."""
    return compiled() and os.environ.get("INTENT_LS_PURE_PYTHON", "") in ("", "0")


class NativeRows:
    """Rows of a new cache file (nobody reads it yet), written by a connection of the C
    writer's own: the caller's connection to it stays out of a transaction meanwhile."""

    def __init__(self, path: Path, strings: Strings) -> None:
        assert _bulk is not None and strings.fresh
        self._strings = strings
        self._writer = _bulk.Writer(
            os.fspath(path), URN, FILE_ROW, strings.ids, strings.miss, INSERTS
        )
        self._records: list[Any] = []
        self._touches: list[Any] = []

    def block(self, block: memoryview, base: int, seq: int) -> int:
        """:func:`~intent_ls.ledger.index.fastpath.fast_block`'s rows of ``block``,
        written; returns the last number given."""
        decode, error = fastpath._decoder()
        errors = (error, ValueError, RecursionError)
        pos, size = 0, len(block)
        while True:
            seq, pos, end = self._writer.block(block, pos, base, seq, decode, errors)
            if pos >= size:
                return seq
            line = bytes(block[pos:end])
            seq = fastpath.fast_block(
                line, base + pos, seq, self._strings, self._records, self._touches
            )
            self._writer.rows(self._records, self._touches)
            pos = end

    def close(self) -> None:
        """Writes the rest and commits."""
        self._writer.close()

    def abort(self) -> None:
        self._writer.abort()
