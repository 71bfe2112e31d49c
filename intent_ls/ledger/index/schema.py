"""The cache file's layout: tables, indexes, the ``meta`` rows that say how far it goes.

``records`` holds one row per ledger line (``seq`` numbers lines in the order they were
indexed, ``offset`` locates the line, ``lkey`` is the key of the record's own digest, used
to find the line again after a merge); ``touches`` one row per range and per AST node a
record names, and a file row (``nkind`` "file") per file a record names without a range;
its ``path`` and ``name`` are ids in ``strings`` (:mod:`.strings`). ``meta`` holds
``version`` (:data:`SCHEMA_VERSION`), ``offset`` (the byte after the last indexed line),
``seq`` (the last number given), ``head_start`` and ``head_hash`` (where the last indexed
line starts and its hash: a rewritten ledger shows there).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from intent_ls.common.safe_io import require_regular

CACHE_RELPATH = Path(".orchestration") / ".local" / "trace-index.sqlite"
SCHEMA_VERSION = "5"
#: (bytes indexed so far, ledger size) — the LSP layer maps it to work-done progress.
Progress = Callable[[int, int], None]

DDL = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE records(
  seq INTEGER PRIMARY KEY, offset INTEGER NOT NULL, ts TEXT, intent TEXT,
  ctype TEXT, model TEXT, mclass TEXT, kind TEXT, lkey INTEGER);
CREATE TABLE touches(seq INTEGER NOT NULL, path INTEGER, name INTEGER, nkind TEXT, hkey INTEGER);
CREATE TABLE strings(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
"""
#: Created after a cold build's bulk insert: several times cheaper than row by row.
INDEXES = """
CREATE INDEX IF NOT EXISTS touches_hkey ON touches(hkey);
CREATE INDEX IF NOT EXISTS touches_path_name ON touches(path, name);
CREATE INDEX IF NOT EXISTS records_intent ON records(intent);
CREATE INDEX IF NOT EXISTS strings_text ON strings(text);
"""
#: Columns of a ``records`` row and of a ``touches`` row.
RECORD_WIDTH, TOUCH_WIDTH = 9, 5
#: Rows per INSERT of a bulk write: one statement per row costs twice the CPU (binding
#: and stepping a statement per row). 100 rows of 9 values stay under the 999 host
#: parameters of SQLite before 3.32.
ROWS_PER_INSERT = 100


def insert_rows(db: sqlite3.Connection, table: str, width: int, values: list[Any]) -> None:
    """Inserts ``values``, a flat list of rows of ``width`` columns, and empties it."""
    step = width * ROWS_PER_INSERT
    whole = len(values) - len(values) % step
    if whole:
        db.executemany(
            _insert_sql(table, width, ROWS_PER_INSERT),
            [values[at : at + step] for at in range(0, whole, step)],
        )
    if whole < len(values):
        db.execute(_insert_sql(table, width, (len(values) - whole) // width), values[whole:])
    values.clear()


def _insert_sql(table: str, width: int, rows: int) -> str:
    row = "(" + ",".join("?" * width) + ")"
    return f"INSERT INTO {table} VALUES " + ",".join([row] * rows)


def create(path: Path) -> sqlite3.Connection:
    """A new cache file for a cold build: nobody reads it until it is put into place,
    so a crash just leaves a stale temporary file and journaling buys nothing. The page
    cache stays at SQLite's small default: appending rows in rowid order does not need
    more, and CREATE INDEX sorts in runs of up to the cache size, which it does fastest
    when a run fits the CPU caches (a 64 MiB cache made the 1M-record indexes ~1 s slower).
    Pages stay at 4 KiB: 16 KiB pages saved ~5% of the inserts but made a hover's
    lookups, a few hundred rows scattered over the file, ~40% slower."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + DDL)
    return db


def refuse_links(cache: Path) -> None:
    """Raises :class:`~intent_ls.common.safe_io.UnsafePathError` unless each file SQLite
    opens by the cache's name is a regular file or absent (SQLite follows symlinks)."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        require_regular(cache.with_name(cache.name + suffix))


def usable(cache: Path) -> bool:
    """True when ``cache`` is a database of this :data:`SCHEMA_VERSION`."""
    try:
        db = sqlite3.connect(cache)
        try:
            row = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return False
    return row is not None and row[0] == SCHEMA_VERSION


def read_meta(db: sqlite3.Connection) -> dict[str, str]:
    return dict(db.execute("SELECT key, value FROM meta").fetchall())


def write_meta(db: sqlite3.Connection, values: dict[str, str]) -> None:
    db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())
