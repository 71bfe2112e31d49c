"""Keeping the cache file up with the ledger: catch up on appends, realign after a merge,
rebuild from scratch when the file is missing, of another schema or unreadable.
"""

from __future__ import annotations

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
    read_meta,
    refuse_links,
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
        return added

    def up_to_date(self) -> bool:
        """True when the last :meth:`refresh` left nothing to do (one ``stat``)."""
        try:
            st = self.ledger.stat()
        except FileNotFoundError:
            return self._current((0, 0, 0))
        return self._current((st.st_size, st.st_mtime_ns, st.st_ino))

    def _current(self, stamp: tuple[int, int, int]) -> bool:
        return stamp == self._seen and self._db is not None and self._cache_current()

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
        db = sqlite3.connect(self.cache, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA busy_timeout=10000")
        self._db, self._db_ino = db, self.cache.stat().st_ino
        return db

    def _catch_up(self, db: sqlite3.Connection, size: int) -> int:
        meta = read_meta(db)
        offset = int(meta.get("offset", 0))
        if offset == size and not self._rewritten(meta):
            return 0
        db.execute("BEGIN IMMEDIATE")
        try:
            meta = read_meta(db)  # another process may have caught up meanwhile
            if int(meta.get("offset", 0)) > size or self._rewritten(meta):
                realigned = realign(db, self.ledger, meta)
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

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query, after picking up new appends."""
        self.refresh()
        assert self._db is not None
        return self._db.execute(sql, params).fetchall()
