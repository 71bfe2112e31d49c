"""The cache file's layout: tables, indexes, the ``meta`` rows that say how far it goes.

``records`` holds one row per ledger line (``seq`` numbers lines in the order they were
indexed, ``offset`` locates the line, ``lkey`` is the key of the record's own digest, used
to find the line again after a merge); ``touches`` one row per range and per AST node a
record names, and a file row (``nkind`` "file") per file a record names without a range.
``meta`` holds ``version`` (:data:`SCHEMA_VERSION`), ``offset`` (the byte
after the last indexed line), ``seq`` (the last number given), ``head_start`` and
``head_hash`` (where the last indexed line starts and its hash: a rewritten ledger shows
there).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from intent_ls.common.safe_io import require_regular

CACHE_RELPATH = Path(".orchestration") / ".local" / "trace-index.sqlite"
SCHEMA_VERSION = "4"
#: (bytes indexed so far, ledger size) — the LSP layer maps it to work-done progress.
Progress = Callable[[int, int], None]

DDL = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE records(
  seq INTEGER PRIMARY KEY, offset INTEGER NOT NULL, ts TEXT, intent TEXT,
  ctype TEXT, model TEXT, mclass TEXT, kind TEXT, lkey INTEGER);
CREATE TABLE touches(seq INTEGER NOT NULL, path TEXT, name TEXT, nkind TEXT, hkey INTEGER);
"""
#: Created after a cold build's bulk insert: several times cheaper than row by row.
INDEXES = """
CREATE INDEX IF NOT EXISTS touches_hkey ON touches(hkey);
CREATE INDEX IF NOT EXISTS touches_path_name ON touches(path, name);
CREATE INDEX IF NOT EXISTS records_intent ON records(intent);
"""
#: The placeholders of one ``records`` row and one ``touches`` row.
INSERT_RECORDS = "INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?)"
INSERT_TOUCHES = "INSERT INTO touches VALUES (?,?,?,?,?)"


def create(path: Path) -> sqlite3.Connection:
    """A new cache file for a cold build: nobody reads it until it is put into place,
    so a crash just leaves a stale temporary file and journaling buys nothing. The page
    cache stays at SQLite's small default: appending rows in rowid order does not need
    more, and CREATE INDEX sorts in runs of up to the cache size, which it does fastest
    when a run fits the CPU caches (a 64 MiB cache made the 1M-record indexes ~1 s slower)."""
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
