"""The cache file's layout: tables, indexes, the ``meta`` rows that say how far it goes.

``records`` holds one row per ledger line (``seq`` numbers lines in the order they were
indexed, ``offset`` locates the line, ``lkey`` is the key of the record's own digest, used
to find the line again after a merge); ``touches`` one row per range and per AST node a
record names, and a file row (``nkind`` "file") per file a record names without a range;
its ``path`` and ``name`` are ids in ``strings`` (:mod:`.strings`). ``meta`` holds
``version`` (:data:`SCHEMA_VERSION`), ``offset`` (the byte after the last indexed line),
``seq`` (the last number given), ``head_start`` and ``head_hash`` (where the last indexed
line starts and its hash: a rewritten ledger shows there), and ``shards``.

Within a file, ``touches`` rows are written in ``seq`` order, so their rowids follow
``seq``: a blame walks an index entry backwards by rowid and stops early
(:mod:`.queries`). Every writer keeps it: a cold build's halves, appends and a realign's
lines (numbered after every existing ``seq``).

A parallel cold build leaves the records after the ledger's middle in a *shard*: a file
beside the cache (``trace-index.sqlite.<16 hex>.shard``) with the same tables and
indexes, its ``seq`` numbers following the cache's own. ``shards`` names them; a
connection attaches each (as ``s1``…) and queries ask every one. Appends after the build
go to the cache file itself. A shard is written once, under a name nobody knew before,
and only named once complete.
"""

from __future__ import annotations

import os
import re
import sqlite3
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from intent_ls.common.safe_io import require_regular

CACHE_RELPATH = Path(".orchestration") / ".local" / "trace-index.sqlite"
SCHEMA_VERSION = "6"
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
            insert_sql(table, width, ROWS_PER_INSERT),
            [values[at : at + step] for at in range(0, whole, step)],
        )
    if whole < len(values):
        db.execute(insert_sql(table, width, (len(values) - whole) // width), values[whole:])
    values.clear()


def insert_sql(table: str, width: int, rows: int) -> str:
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


def shard_path(cache: Path, nonce: str) -> Path:
    return cache.with_name(f"{cache.name}.{nonce}.shard")


def shard_names(cache: Path, meta: dict[str, str]) -> list[str]:
    """The shards ``meta`` names; ValueError for a name that is not one (a forged or
    damaged cache must not attach, or create, a file elsewhere)."""
    names = meta.get("shards", "").split()
    form = re.compile(re.escape(cache.name) + r"\.[0-9a-f]{16}\.shard")
    if not all(form.fullmatch(name) for name in names):
        raise ValueError(f"not a shard of {cache.name}: {names!r}")
    return names


def connect(cache: Path, names: list[str]) -> sqlite3.Connection:
    """A connection to ``cache`` with its shards attached as ``s1``, ``s2``…; a shard
    that is missing fails (it is never created)."""
    refuse_links(cache)
    db = sqlite3.connect(
        os.path.abspath(cache), isolation_level=None, uri=True, check_same_thread=False
    )
    try:
        for number, name in enumerate(names, 1):
            path = cache.with_name(name)
            refuse_links(path)
            db.execute(f"ATTACH DATABASE ? AS s{number}", (_uri(path, "rw"),))
    except BaseException:
        db.close()
        raise
    return db


def _uri(path: Path, mode: str) -> str:
    return f"file:{urllib.parse.quote(os.path.abspath(path))}?mode={mode}"


def refuse_links(cache: Path) -> None:
    """Raises :class:`~intent_ls.common.safe_io.UnsafePathError` unless each file SQLite
    opens by the cache's name is a regular file or absent (SQLite follows symlinks)."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        require_regular(cache.with_name(cache.name + suffix))


def usable(cache: Path) -> bool:
    """True when ``cache`` and each shard it names are databases of this
    :data:`SCHEMA_VERSION`; a shard that is a link raises, as the cache would."""
    try:
        meta = _meta_of(cache)
        names = shard_names(cache, meta)
        for name in names:
            refuse_links(cache.with_name(name))
        return meta.get("version") == SCHEMA_VERSION and all(
            _meta_of(cache.with_name(name), "ro").get("version") == SCHEMA_VERSION for name in names
        )
    except (sqlite3.DatabaseError, ValueError):
        return False


def _meta_of(path: Path, mode: str = "rw") -> dict[str, str]:
    db = sqlite3.connect(_uri(path, mode) if mode == "ro" else path, uri=mode == "ro")
    try:
        return read_meta(db)
    finally:
        db.close()


def read_meta(db: sqlite3.Connection) -> dict[str, str]:
    return dict(db.execute("SELECT key, value FROM meta").fetchall())


def write_meta(db: sqlite3.Connection, values: dict[str, str]) -> None:
    db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())
