"""An index derived from the ledger: which records touched a hash, a file, a definition.

The JSONL ledger stays the single source of truth; this is a cache in SQLite at
``.orchestration/.local/trace-index.sqlite`` (never committed; delete it at will). It is
built once, then extended from the last indexed byte offset, so appends by other
processes are picked up by the next query without re-reading the ledger. The cache
remembers the offset and the hash of the last indexed line; if the ledger shrank or
that line changed, the ledger was rewritten and the index is rebuilt from scratch.

Hashes are indexed by their first 64 bits (:func:`intent_ls.hashing.hash_key`): a 1M
record ledger then fits in a small B-tree, and a false match needs a 2⁻⁶⁴ accident.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs

from intent_ls.hashing import bytes_hash, hash_key
from intent_ls.ledger.records import METADATA_KEY, intent_urn
from intent_ls.ledger.store import LEDGER_RELPATH
from intent_ls.syntax.model import AstNode

CACHE_RELPATH = Path(".orchestration") / ".local" / "trace-index.sqlite"
SCHEMA_VERSION = "1"
#: (bytes indexed so far, ledger size) — the LSP layer maps it to work-done progress.
Progress = Callable[[int, int], None]
_BLOCK = 8 * 1024 * 1024
_BATCH = 20_000
_URN = intent_urn("")

_DDL = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE records(
  seq INTEGER PRIMARY KEY, offset INTEGER NOT NULL, ts TEXT, intent TEXT,
  ctype TEXT, model TEXT, mclass TEXT, kind TEXT);
CREATE TABLE touches(
  seq INTEGER NOT NULL, path TEXT, name TEXT, nkind TEXT, hkey INTEGER,
  start_line INTEGER, end_line INTEGER);
"""
_INDEXES = """
CREATE INDEX IF NOT EXISTS touches_hkey ON touches(hkey);
CREATE INDEX IF NOT EXISTS touches_path_name ON touches(path, name);
CREATE INDEX IF NOT EXISTS records_intent ON records(intent);
"""


@attrs.frozen
class RecordRef:
    """One ledger record as the index knows it; ``offset`` locates its line."""

    seq: int
    offset: int
    timestamp: str
    intent_id: str | None
    contributor: str | None
    model_id: str | None
    mutation_class: str | None
    kind: str | None


@attrs.frozen
class BlameEntry:
    """One record behind a line or definition; ``via`` says how it matched: "definition"
    (same path and qualified name), "content" (same content hash, wherever it was)."""

    record: RecordRef
    path: str
    name: str | None
    via: str


@attrs.frozen
class DefinitionStats:
    changes: int
    intents: tuple[str, ...]
    last_timestamp: str | None


@attrs.frozen
class SummaryRow:
    """Per (intent, path, definition) aggregate for the intent map; ``name`` None is the
    file-level row (records that touched the file at all)."""

    intent_id: str
    path: str
    name: str | None
    kind: str | None
    changes: int
    last_timestamp: str
    contributors: tuple[str, ...]


def _contributor_label(ctype: str | None, model: str | None) -> str:
    return f"{ctype}:{model}" if model else str(ctype)


def extract_rows(
    seq: int, offset: int, record: dict[str, Any]
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    """The ``records`` row and ``touches`` rows of one parsed record."""
    meta = record.get("metadata", {}).get(METADATA_KEY, {}) if isinstance(record, dict) else {}
    intent = meta.get("intent_id")
    ctype = model = None
    touches: list[tuple[Any, ...]] = []
    for file in record.get("files") or ():
        path = file.get("path")
        for conv in file.get("conversations") or ():
            contributor = conv.get("contributor") or {}
            ctype = ctype or contributor.get("type")
            model = model or contributor.get("model_id")
            if intent is None:
                for rel in conv.get("related") or ():
                    url = rel.get("url", "")
                    if rel.get("type") == "specification" and url.startswith(_URN):
                        intent = url[len(_URN) :]
            for rng in conv.get("ranges") or ():
                digest = rng.get("content_hash")
                touches.append(
                    (
                        seq,
                        path,
                        None,
                        None,
                        hash_key(digest) if digest else None,
                        rng.get("start_line"),
                        rng.get("end_line"),
                    )
                )
    for node in meta.get("ast_nodes") or ():
        digest = node.get("content_hash")
        touches.append(
            (
                seq,
                node.get("path"),
                node.get("name"),
                node.get("kind"),
                hash_key(digest) if digest else None,
                node.get("start_line"),
                node.get("end_line"),
            )
        )
    row = (
        seq,
        offset,
        record.get("timestamp"),
        intent,
        ctype,
        model,
        meta.get("mutation_class"),
        meta.get("kind"),
    )
    return row, touches


def _scan(
    ledger: Path, start: int, progress: Progress | None
) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of complete lines from ``start``; a torn tail is left for later."""
    size = ledger.stat().st_size
    with ledger.open("rb") as f:
        f.seek(start)
        offset = start
        pending = b""
        while True:
            block = f.read(_BLOCK)
            if not block:
                break
            data = pending + block
            lines = data.split(b"\n")
            pending = lines.pop()
            for line in lines:
                yield offset, line
                offset += len(line) + 1
            if progress is not None:
                progress(offset, size)


class TraceIndex:
    """Query the ledger's history; every query first picks up new appends (cheap stat)."""

    def __init__(self, ledger: Path, cache: Path, *, progress: Progress | None = None) -> None:
        self.ledger = Path(ledger)
        self.cache = Path(cache)
        self._progress = progress
        self._db: sqlite3.Connection | None = None
        self._db_ino = -1
        self._seen: tuple[int, int, int] | None = None

    @classmethod
    def for_workspace(cls, root: Path, *, progress: Progress | None = None) -> TraceIndex:
        cache = root / CACHE_RELPATH
        _ensure_local_dir(cache.parent)
        return cls(root / LEDGER_RELPATH, cache, progress=progress)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- keeping up with the ledger -------------------------------------------------

    def refresh(self) -> int:
        """Index what was appended since the last call; returns the records added.
        Rebuilds from scratch when the ledger was rewritten or the cache is unusable."""
        try:
            st = self.ledger.stat()
        except FileNotFoundError:
            st = None
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino) if st else (0, 0, 0)
        if stamp == self._seen and self._db is not None and self._cache_current():
            return 0
        db = self._connect()
        added = self._catch_up(db, st.st_size if st else 0)
        self._seen = stamp
        return added

    def rebuild(self) -> int:
        """Cold build into a fresh file, swapped in atomically so readers never see half."""
        tmp = self.cache.with_name(f"{self.cache.name}.{os.getpid()}.tmp")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _DDL)
            db.execute("BEGIN")
            self._set_meta(db, {"version": SCHEMA_VERSION, "offset": "0", "seq": "0"})
            added = self._index_from(db, 0, 0) if self.ledger.exists() else 0
            db.execute("COMMIT")
            db.executescript(_INDEXES)
        finally:
            db.close()
        os.replace(tmp, self.cache)
        self.close()
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
        if not self.cache.exists() or not self._usable(self.cache):
            self.rebuild()
        db = sqlite3.connect(self.cache, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA busy_timeout=10000")
        self._db, self._db_ino = db, self.cache.stat().st_ino
        return db

    @staticmethod
    def _usable(cache: Path) -> bool:
        try:
            db = sqlite3.connect(cache)
            try:
                row = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
            finally:
                db.close()
        except sqlite3.DatabaseError:
            return False
        return row is not None and row[0] == SCHEMA_VERSION

    def _catch_up(self, db: sqlite3.Connection, size: int) -> int:
        meta = self._meta(db)
        offset = int(meta.get("offset", 0))
        if offset == size and not self._rewritten(meta):
            return 0
        if offset > size or self._rewritten(meta):
            return self.rebuild()
        db.execute("BEGIN IMMEDIATE")
        try:
            meta = self._meta(db)  # another process may have caught up meanwhile
            added = self._index_from(db, int(meta.get("offset", 0)), int(meta.get("seq", 0)))
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
            with self.ledger.open("rb") as f:
                f.seek(head_start)
                line = f.read(offset - head_start)
        except FileNotFoundError:
            return True
        return not line.endswith(b"\n") or bytes_hash(line[:-1]) != meta.get("head_hash")

    def _index_from(self, db: sqlite3.Connection, offset: int, seq: int) -> int:
        records: list[tuple[Any, ...]] = []
        touches: list[tuple[Any, ...]] = []
        head: tuple[int, bytes] | None = None
        added = 0
        loads = json.loads
        for line_offset, line in _scan(self.ledger, offset, self._progress):
            seq += 1
            head = (line_offset, line)
            try:
                record = loads(line)
                row, rows = extract_rows(seq, line_offset, record)
            except (ValueError, AttributeError, TypeError):
                row, rows = (seq, line_offset, None, None, None, None, None, "invalid"), []
            records.append(row)
            touches.extend(rows)
            added += 1
            if len(records) >= _BATCH:
                self._flush(db, records, touches)
        self._flush(db, records, touches)
        if head is not None:
            self._set_meta(
                db,
                {
                    "offset": str(head[0] + len(head[1]) + 1),
                    "seq": str(seq),
                    "head_start": str(head[0]),
                    "head_hash": bytes_hash(head[1]),
                },
            )
        return added

    @staticmethod
    def _flush(
        db: sqlite3.Connection, records: list[tuple[Any, ...]], touches: list[tuple[Any, ...]]
    ) -> None:
        db.executemany("INSERT INTO records VALUES (?,?,?,?,?,?,?,?)", records)
        db.executemany("INSERT INTO touches VALUES (?,?,?,?,?,?,?)", touches)
        records.clear()
        touches.clear()

    @staticmethod
    def _meta(db: sqlite3.Connection) -> dict[str, str]:
        return dict(db.execute("SELECT key, value FROM meta").fetchall())

    @staticmethod
    def _set_meta(db: sqlite3.Connection, values: dict[str, str]) -> None:
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())

    # -- queries --------------------------------------------------------------------

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.refresh()
        assert self._db is not None
        return self._db.execute(sql, params).fetchall()

    @property
    def record_count(self) -> int:
        return int(self._query("SELECT count(*) FROM records")[0][0])

    def records_for_hash(self, digest: str, limit: int = 100) -> list[RecordRef]:
        return self._refs(
            "SELECT DISTINCT r.* FROM touches t JOIN records r ON r.seq = t.seq "
            "WHERE t.hkey = ? ORDER BY r.seq DESC LIMIT ?",
            (hash_key(digest), limit),
        )

    def records_for_path(self, path: str, limit: int | None = None) -> list[RecordRef]:
        return self._refs(
            "SELECT DISTINCT r.* FROM touches t JOIN records r ON r.seq = t.seq "
            "WHERE t.path = ? ORDER BY r.seq DESC LIMIT ?",
            (path, -1 if limit is None else limit),
        )

    def records_for_intent(self, intent_id: str, limit: int | None = None) -> list[RecordRef]:
        return self._refs(
            "SELECT * FROM records WHERE intent = ? ORDER BY seq DESC LIMIT ?",
            (intent_id, -1 if limit is None else limit),
        )

    def all_records(self) -> list[RecordRef]:
        return self._refs("SELECT * FROM records ORDER BY seq")

    def _refs(self, sql: str, params: Sequence[Any] = ()) -> list[RecordRef]:
        return [RecordRef(*row) for row in self._query(sql, params)]

    def blame(
        self,
        path: str,
        *,
        definition: AstNode | None = None,
        content_hash: str | None = None,
        limit: int = 20,
    ) -> list[BlameEntry]:
        """Who changed this: records that touched ``definition`` by name in ``path``, or
        whose ranges or nodes had the same content hash anywhere (code that moved keeps
        its history). ``content_hash`` is the hover line's (or selection's) hash. Newest
        first, one entry per record."""
        found: dict[int, BlameEntry] = {}
        if definition is not None:
            for row in self._query(
                "SELECT r.*, t.path, t.name FROM touches t JOIN records r ON r.seq = t.seq "
                "WHERE t.path = ? AND t.name = ? ORDER BY r.seq DESC LIMIT ?",
                (path, definition.name, limit),
            ):
                entry = BlameEntry(RecordRef(*row[:8]), row[8], row[9], "definition")
                found.setdefault(row[0], entry)
        for digest in (definition.content_hash if definition else None, content_hash):
            if digest is None:
                continue
            for row in self._query(
                "SELECT r.*, t.path, t.name FROM touches t JOIN records r ON r.seq = t.seq "
                "WHERE t.hkey = ? ORDER BY r.seq DESC LIMIT ?",
                (hash_key(digest), limit),
            ):
                entry = BlameEntry(RecordRef(*row[:8]), row[8], row[9], "content")
                found.setdefault(row[0], entry)
        return [found[seq] for seq in sorted(found, reverse=True)][:limit]

    def definition_stats(self, path: str, definitions: Sequence[AstNode]) -> list[DefinitionStats]:
        """Per definition (aligned with ``definitions``): mutation records that touched it
        by name here or by content hash anywhere — the code lens "INT-001 · 3 changes"."""
        out = []
        for d in definitions:
            rows = self._query(
                "SELECT r.seq, r.intent, r.ts FROM touches t JOIN records r ON r.seq = t.seq "
                "WHERE t.path = ? AND t.name = ? AND r.kind = 'mutation' "
                "UNION "
                "SELECT r.seq, r.intent, r.ts FROM touches t JOIN records r ON r.seq = t.seq "
                "WHERE t.hkey = ? AND t.name IS NOT NULL AND r.kind = 'mutation'",
                (path, d.name, hash_key(d.content_hash)),
            )
            last = max(rows, key=lambda r: r[0]) if rows else None
            out.append(
                DefinitionStats(
                    changes=len(rows),
                    intents=tuple(sorted({r[1] for r in rows if r[1]})),
                    last_timestamp=last[2] if last else None,
                )
            )
        return out

    def summary(self) -> list[SummaryRow]:
        """Aggregates per (intent, path, definition) and per (intent, path), sorted."""
        rows = self._query(
            "SELECT r.intent, t.path, t.name, max(t.nkind), count(DISTINCT r.seq), max(r.ts), "
            "group_concat(DISTINCT r.ctype || coalesce(':' || r.model, '')) "
            "FROM touches t JOIN records r ON r.seq = t.seq "
            "WHERE r.kind = 'mutation' AND r.intent IS NOT NULL "
            "GROUP BY r.intent, t.path, t.name"
        )
        out = [
            SummaryRow(
                intent, path, name, kind, changes, last, tuple(sorted(set((who or "").split(","))))
            )
            for intent, path, name, kind, changes, last, who in rows
        ]
        out.sort(key=lambda r: (r.intent_id, r.path or "", r.name or ""))
        return out

    def load_record(self, ref: RecordRef) -> dict[str, Any]:
        """The full record behind ``ref``, read from the ledger (the source of truth)."""
        with self.ledger.open("rb") as f:
            f.seek(ref.offset)
            return json.loads(f.readline())


def _ensure_local_dir(local: Path) -> None:
    """``.orchestration/.local/`` holds per-machine caches: ignore all of it in git."""
    local.mkdir(parents=True, exist_ok=True)
    ignore = local / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")
