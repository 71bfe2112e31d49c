"""Keeping the cache file up with the ledger: catch up on appends, realign after a merge,
rebuild from scratch when the file is missing, of another schema or unreadable.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

from intent_ls.common.hashing import bytes_hash
from intent_ls.common.local_state import ensure_private_dir
from intent_ls.common.safe_io import open_sidecar_reader, require_regular
from intent_ls.ledger.index.build import cold_build, index_from, install
from intent_ls.ledger.index.realign import realign
from intent_ls.ledger.index.schema import (
    CACHE_RELPATH,
    Progress,
    connect,
    read_meta,
    refuse_links,
    shard_names,
    usable,
)
from intent_ls.ledger.store import LEDGER_RELPATH


class IndexCache:
    """The cache of one ledger; every query first picks up new appends (cheap stat)."""

    def __init__(self, ledger: Path, cache: Path, *, progress: Progress | None = None) -> None:
        self.ledger = Path(ledger)
        self.cache = Path(cache)
        self._progress = progress
        self._db: sqlite3.Connection | None = None
        self._db_ino = -1
        #: The cache file's modification time after the last refresh: another process
        #: that rebuilt it in place may have named other shards.
        self._db_mtime = -1
        #: The shards attached, and the schema of each file to ask (``main`` first).
        self._shards: list[str] = []
        self.schemas: list[str] = ["main"]
        self._seen: tuple[int, int, int] | None = None

    @classmethod
    def for_workspace(cls, root: Path, *, progress: Progress | None = None) -> Self:
        cache = root / CACHE_RELPATH
        ensure_private_dir(cache.parent)
        return cls(root / LEDGER_RELPATH, cache, progress=progress)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- keeping up with the ledger -------------------------------------------------

    def refresh(self) -> int:
        """Index what was appended since the last call; returns the records added.
        Rebuilds from scratch when the ledger was rewritten or the cache is unusable."""
        require_regular(self.ledger)
        try:
            st = self.ledger.stat()
        except FileNotFoundError:
            st = None
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino) if st else (0, 0, 0)
        if self._current(stamp):
            return 0
        db = self._connect()
        added = self._catch_up(db, st.st_size if st else 0)
        self._seen = stamp
        self._db_mtime = self.cache.stat().st_mtime_ns
        return added

    def up_to_date(self) -> bool:
        """True when the last :meth:`refresh` left nothing to do (one ``stat``)."""
        try:
            st = self.ledger.stat()
        except FileNotFoundError:
            return self._current((0, 0, 0))
        return self._current((st.st_size, st.st_mtime_ns, st.st_ino))

    def _current(self, stamp: tuple[int, int, int]) -> bool:
        if stamp != self._seen or self._db is None:
            return False
        try:
            st = self.cache.stat()
        except FileNotFoundError:
            return False
        return st.st_ino == self._db_ino and st.st_mtime_ns == self._db_mtime

    def backlog(self) -> int | None:
        """Bytes a :meth:`refresh` would index now, without indexing them; None when it
        would build from scratch or realign a rewritten ledger (no usable cache, or the
        indexed lines changed): what decides whether a query can wait for it."""
        require_regular(self.ledger)
        try:
            size = self.ledger.stat().st_size
        except FileNotFoundError:
            size = 0
        fresh = self._db is None or not self._cache_current()
        if fresh and (not self.cache.exists() or not usable(self.cache)):
            return None
        meta = read_meta(self._connect())
        offset = int(meta.get("offset", 0))
        if offset > size or self._rewritten(meta):
            return None
        return size - offset

    def rebuild(self) -> int:
        """Cold build into a fresh file (:func:`~.build.cold_build`), then put in place;
        returns the records indexed."""
        built, added = cold_build(self.ledger, self.cache, self._progress)
        self.close()
        install(built, self.cache)
        self._seen = None
        self._connect()
        return added

    def _cache_current(self) -> bool:
        try:
            return self.cache.stat().st_ino == self._db_ino
        except FileNotFoundError:
            return False

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None and self._cache_current():
            return self._db
        self.close()
        refuse_links(self.cache)
        if not self.cache.exists() or not usable(self.cache):
            self.rebuild()
        with contextlib.closing(sqlite3.connect(self.cache)) as plain:
            names = shard_names(self.cache, read_meta(plain))
        db = connect(self.cache, names)
        db.execute("PRAGMA busy_timeout=10000")
        self._db, self._db_ino = db, self.cache.stat().st_ino
        self._shards = names
        self.schemas = ["main"] + [f"s{n}" for n in range(1, len(names) + 1)]
        return db

    def _shards_moved(self, meta: dict[str, str]) -> bool:
        """True when the cache now names other shards than those attached (another
        process rebuilt it in place)."""
        try:
            return shard_names(self.cache, meta) != self._shards
        except ValueError:
            return True

    def _catch_up(self, db: sqlite3.Connection, size: int) -> int:
        meta = read_meta(db)
        if self._shards_moved(meta):
            self.close()
            db = self._connect()
            meta = read_meta(db)
        offset = int(meta.get("offset", 0))
        if offset == size and not self._rewritten(meta):
            return 0
        db.execute("BEGIN IMMEDIATE")
        try:
            meta = read_meta(db)  # another process may have caught up meanwhile
            if self._shards_moved(meta):  # or rebuilt it: start again on the new file
                db.execute("ROLLBACK")
                return self._catch_up(db, size)
            if int(meta.get("offset", 0)) > size or self._rewritten(meta):
                realigned = realign(db, self.ledger, meta, self.schemas)
                if realigned is None:
                    db.execute("ROLLBACK")
                    return self.rebuild()
                added = realigned
            else:
                added = index_from(
                    db,
                    self.ledger,
                    int(meta.get("offset", 0)),
                    int(meta.get("seq", 0)),
                    self._progress,
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return added

    def _rewritten(self, meta: dict[str, str]) -> bool:
        head_start, offset = int(meta.get("head_start", 0)), int(meta.get("offset", 0))
        if offset == 0:
            return False
        try:
            with open_sidecar_reader(self.ledger) as f:
                f.seek(head_start)
                line = f.read(offset - head_start)
        except FileNotFoundError:
            return True
        return not line.endswith(b"\n") or bytes_hash(line[:-1]) != meta.get("head_hash")

    def _fresh(self) -> sqlite3.Connection:
        """The connection, after picking up new appends: a query that asks several
        statements takes it once, so it pays for one refresh (three ``stat`` calls)."""
        self.refresh()
        assert self._db is not None
        return self._db

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query, after picking up new appends."""
        return self._fresh().execute(sql, params).fetchall()

    def _each(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of ``sql`` asked of the cache file and of each shard (``{s}`` in it
        names the file's schema), after picking up new appends: one list, shard after
        shard. A record's rows are all in one file, so per-file answers only add up."""
        db = self._fresh()
        rows: list[tuple[Any, ...]] = []
        for schema in self.schemas:
            rows += db.execute(sql.format(s=schema), params).fetchall()
        return rows
