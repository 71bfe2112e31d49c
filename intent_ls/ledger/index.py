"""An index derived from the ledger: which records touched a hash, a file, a definition.

The JSONL ledger stays the single source of truth; this is a cache in SQLite at
``.orchestration/.local/trace-index.sqlite`` (never committed; delete it at will). It is
built once, then extended from the last indexed byte offset, so appends by other
processes are picked up by the next query without re-reading the ledger. The cache
remembers the offset and the hash of the last indexed line; if the ledger shrank or
that line changed, the ledger was rewritten and the index is rebuilt from scratch.

Hashes are indexed by their first 64 bits (:func:`intent_ls.common.hashing.hash_key`): a 1M
record ledger then fits in a small B-tree, and a false match needs a 2⁻⁶⁴ accident.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from intent_ls.common.hashing import bytes_hash, hash_key
from intent_ls.common.local_state import ensure_private_dir
from intent_ls.common.safe_io import open_sidecar_reader, require_regular
from intent_ls.ledger.records import METADATA_KEY, intent_urn
from intent_ls.ledger.store import LEDGER_RELPATH
from intent_ls.syntax.model import AstNode

if TYPE_CHECKING:
    import subprocess

CACHE_RELPATH = Path(".orchestration") / ".local" / "trace-index.sqlite"
SCHEMA_VERSION = "3"
#: (bytes indexed so far, ledger size) — the LSP layer maps it to work-done progress.
Progress = Callable[[int, int], None]
_BLOCK = 8 * 1024 * 1024
_BATCH = 50_000
_TAIL = 64 * 1024
_URN = intent_urn("")
#: Below this a second process costs more to start than it saves.
_PARALLEL_MIN = 32 * 1024 * 1024

_DDL = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE records(
  seq INTEGER PRIMARY KEY, offset INTEGER NOT NULL, ts TEXT, intent TEXT,
  ctype TEXT, model TEXT, mclass TEXT, kind TEXT, lkey INTEGER);
CREATE TABLE touches(seq INTEGER NOT NULL, path TEXT, name TEXT, nkind TEXT, hkey INTEGER);
"""
#: The ``records`` columns a :class:`RecordRef` is made of (``lkey`` is internal).
_REF = "r.seq, r.offset, r.ts, r.intent, r.ctype, r.model, r.mclass, r.kind"
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


def extract_rows(
    seq: int, offset: int, record: dict[str, Any]
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    """The ``records`` row and ``touches`` rows of one parsed record (any shape: foreign
    and hand-edited records are indexed too, as far as they carry the fields)."""
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
                touches.append((seq, path, None, None, hash_key(digest) if digest else None))
    for node in meta.get("ast_nodes") or ():
        digest = node.get("content_hash")
        touches.append(
            (
                seq,
                node.get("path"),
                node.get("name"),
                node.get("kind"),
                hash_key(digest) if digest else None,
            )
        )
    digest = meta.get("digest")
    row = (
        seq,
        offset,
        record.get("timestamp"),
        intent,
        ctype,
        model,
        meta.get("mutation_class"),
        meta.get("kind"),
        _digest_key(digest),
    )
    return row, touches


def _digest_key(digest: Any) -> int | None:
    """The line key of a record: its own ``digest``, which already identifies it, so a
    cold build does not hash every line to be able to find it again after a merge."""
    if isinstance(digest, str) and _DIGEST_FORM(digest):
        return hash_key(digest)
    return None


# The fast path: our own lines are canonical JSON of one known shape, so one anchored
# regex reads the fields the index needs without building the record, several times
# faster than json.loads plus extract_rows. A line with a backslash takes the slow path,
# so every `"` is a string delimiter and strings can be matched as `"[^"]*"` (the one
# form sre scans at memchr-like speed; a character class is three times slower). The
# grammar pins every key the index reads and accepts only JSON around them; it does not
# check what it skips (hash digits, control characters inside strings), which only a
# damaged line has and which `trace verify` reports. It runs on the decoded line, which
# checks the UTF-8 once and yields the captured fields as str without further decoding.
_S = r'"[^"]*"'
_C = r'"([^"]*)"'
_OPT = r'(?:"([^"]*)"|null)'
_INT = r"-?(?:0|[1-9][0-9]*)"
_NUM = _INT + r"(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
_SCALAR = rf"(?:{_S}|{_NUM}|true|false|null)"
_ARRAY = rf"\[(?:{_SCALAR}(?:,{_SCALAR})*)?\]"
_VALUE1 = rf"(?:{_SCALAR}|{_ARRAY})"
_OBJECT1 = rf"\{{(?:{_S}:{_VALUE1}(?:,{_S}:{_VALUE1})*)?\}}"
_VALUE2 = rf"(?:{_VALUE1}|{_OBJECT1})"
_OBJECT2 = rf"\{{(?:{_S}:{_VALUE2}(?:,{_S}:{_VALUE2})*)?\}}"
#: verdicts and approvals: objects nested at most twice (verdict details are flat).
_OBJECTS = rf"\[(?:{_OBJECT2}(?:,{_OBJECT2})*)?\]"


def _range(prefix: str) -> str:
    return rf'\{{"content_hash":"sha256:{prefix}[^"]*","end_line":{_INT},"start_line":{_INT}\}}'


def _node(prefix: str, string: str) -> str:
    return (
        rf'\{{"content_hash":"sha256:{prefix}[^"]*","end_line":{_INT},"kind":{string},'
        rf'"name":{string},"path":{string},"start_line":{_INT}\}}'
    )


def _list(item: str) -> str:
    return rf"((?:{item}(?:,{item})*)?)"


_HEX16 = "[0-9a-f]{16}"
_DIGEST_FORM = re.compile(r"sha256:[0-9a-f]{16}.*").fullmatch
#: Below this many bytes to index, json.loads costs less than compiling the fast path's
#: grammar (about 12 ms, which the fast path wins back after some 3,000 lines): an agent
#: hook catching up with the few records written since its last call never compiles it.
_FAST_MIN = 4 * 1024 * 1024


_FindAll = Callable[[str], list[Any]]


@cache
def _grammar() -> tuple[Callable[[str], re.Match[str] | None], _FindAll, _FindAll]:
    """The fast path's matchers (line, ranges, nodes), compiled on first use."""
    line = re.compile(
        rf'\{{"files":\[\{{"conversations":\[\{{"contributor":\{{(?:"model_id":{_C},)?'
        rf'"type":{_C}\}},"ranges":\[{_list(_range(_HEX16))}\]'
        r'(?:,"related":\[\{"type":"specification","url":"urn:intent:([^"]*)"\}\])?\}\],'
        rf'"path":{_C}\}}\],"id":{_S},"metadata":\{{"intent_ls":\{{'
        rf'(?:"after_hash":{_S},)?"approvals":{_OBJECTS},'
        rf'"ast_nodes":\[{_list(_node(_HEX16, _S))}\],'
        rf'(?:"before_hash":{_S},)?"deleted_lines":{_INT},"digest":"sha256:({_HEX16})[^"]*",'
        rf'"intent_id":{_OPT},"kind":{_OPT},"mutation_class":{_OPT},"prev":{_S},'
        rf'"session_id":(?:{_S}|null),"verdicts":{_OBJECTS}\}}\}},"timestamp":{_C},'
        rf'"tool":\{{"name":{_S},"version":{_S}\}},'
        rf'(?:"vcs":\{{"revision":{_S},"type":{_S}\}},)?"version":{_S}\}}'
    ).fullmatch
    ranges = re.compile(_range(f"({_HEX16})")).findall
    nodes = re.compile(_node(f"({_HEX16})", _C)).findall
    return line, ranges, nodes


_TOP = 1 << 63
_WRAP = 1 << 64


def fast_rows(
    seq: int, offset: int, line: bytes
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]] | None:
    """What ``extract_rows(seq, offset, json.loads(line))`` returns, read without building
    the record; None when the line is not in the shape the fast path knows (including
    bytes that are not strict UTF-8: json.loads decides about those)."""
    try:
        text = line.decode()
    except UnicodeDecodeError:
        return None
    if "\\" in text:
        return None
    full_line, ranges_of, nodes_of = _grammar()
    match = full_line(text)
    if match is None:
        return None
    model, ctype, ranges, urn_intent, path, nodes, lkey, intent, kind, mclass, ts = match.groups()
    touches: list[tuple[Any, ...]] = []
    for prefix in ranges_of(ranges):
        key = int(prefix, 16)
        touches.append((seq, path, None, None, key - _WRAP if key >= _TOP else key))
    for prefix, nkind, name, npath in nodes_of(nodes):
        key = int(prefix, 16)
        touches.append((seq, npath, name, nkind, key - _WRAP if key >= _TOP else key))
    key = int(lkey, 16)
    row = (
        seq,
        offset,
        ts,
        urn_intent if intent is None else intent,
        ctype,
        model,
        mclass,
        kind,
        key - _WRAP if key >= _TOP else key,
    )
    return row, touches


def line_rows(seq: int, offset: int, line: bytes) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    """The rows of one ledger line: the fast path, else json.loads; "invalid" if it is not
    a JSON object (a damaged line still takes a ``seq`` so later records keep theirs)."""
    rows = fast_rows(seq, offset, line)
    return json_rows(seq, offset, line) if rows is None else rows


def json_rows(seq: int, offset: int, line: bytes) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    """:func:`line_rows` without the fast path."""
    try:
        return extract_rows(seq, offset, json.loads(line))
    except (ValueError, AttributeError, TypeError):
        return (seq, offset, None, None, None, None, None, "invalid", None), []


def _scan(
    ledger: Path, start: int, end: int | None, on_block: Callable[[int], None] | None
) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of complete lines from ``start`` up to ``end`` (a line boundary, or
    None for the end of the file); a torn tail is left for later."""
    with open_sidecar_reader(ledger) as f:
        f.seek(start)
        offset = start
        pending = b""
        while end is None or offset + len(pending) < end:
            want = _BLOCK if end is None else min(_BLOCK, end - offset - len(pending))
            block = f.read(want)
            if not block:
                break
            data = pending + block
            lines = data.split(b"\n")
            pending = lines.pop()
            for line in lines:
                yield offset, line
                offset += len(line) + 1
            if on_block is not None:
                on_block(offset)


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
        if stamp == self._seen and self._db is not None and self._cache_current():
            return 0
        db = self._connect()
        added = self._catch_up(db, st.st_size if st else 0)
        self._seen = stamp
        return added

    def rebuild(self) -> int:
        """Cold build into a fresh file, put in place (:func:`_install`) only once complete
        so readers never see half.
        A large ledger is split at a line boundary and a second process parses the second
        half into a file of its own, merged in at the end: parsing is most of the work and
        the GIL would keep it on one core. Indexes are created after the bulk insert,
        which is several times cheaper than maintaining them row by row."""
        # Unguessable names: SQLite follows a symlink planted at a name known in advance.
        nonce = os.urandom(8).hex()
        tmp = self.cache.with_name(f"{self.cache.name}.{nonce}.tmp")
        part = self.cache.with_name(f"{self.cache.name}.{nonce}.part")
        for stale in (tmp, part):
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()
        size = self.ledger.stat().st_size if self.ledger.exists() else 0
        split = _split_point(self.ledger, size) if size >= _PARALLEL_MIN else None
        worker = _Part.start(self.ledger, part, split) if split is not None else None
        if worker is None:
            split = None
        db = _create(tmp)
        try:
            db.execute("BEGIN")
            _set_meta(db, {"version": SCHEMA_VERSION, "offset": "0", "seq": "0"})
            added = 0
            if size:
                extra = worker.done if worker is not None else None
                added = self._index_from(db, 0, 0, end=split, extra=extra)
            db.execute("COMMIT")
            if worker is not None:
                added = self._merge_part(db, worker, part, added)
            db.executescript(_INDEXES)
        finally:
            db.close()
            if worker is not None:
                worker.stop()
            with contextlib.suppress(FileNotFoundError):
                part.unlink()
        self.close()
        _install(tmp, self.cache)
        self._seen = None
        self._connect()
        return added

    def _merge_part(self, db: sqlite3.Connection, worker: _Part, part: Path, added: int) -> int:
        """Appends the worker's rows after the first half's ``added`` records, shifting their
        ``seq``; if the worker failed, indexes its half here instead."""
        if not worker.finish():
            db.execute("BEGIN")
            added += self._index_from(db, worker.start_offset, added)
            db.execute("COMMIT")
            return added
        db.execute("ATTACH DATABASE ? AS part", (str(part),))
        meta = dict(db.execute("SELECT key, value FROM part.meta").fetchall())
        db.execute("BEGIN")
        db.execute(
            "INSERT INTO records SELECT seq + ?, offset, ts, intent, ctype, model, mclass, kind, "
            "lkey FROM part.records",
            (added,),
        )
        db.execute(
            "INSERT INTO touches SELECT seq + ?, path, name, nkind, hkey FROM part.touches",
            (added,),
        )
        if int(meta["seq"]):
            added += int(meta["seq"])
            _set_meta(
                db,
                {
                    "offset": meta["offset"],
                    "seq": str(added),
                    "head_start": meta["head_start"],
                    "head_hash": meta["head_hash"],
                },
            )
        db.execute("COMMIT")
        db.execute("DETACH DATABASE part")
        if self._progress is not None:
            self._progress(int(meta["offset"]), self.ledger.stat().st_size)
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
        for suffix in ("", "-journal", "-wal", "-shm"):  # files SQLite opens by name
            require_regular(self.cache.with_name(self.cache.name + suffix))
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
        meta = _meta(db)
        offset = int(meta.get("offset", 0))
        if offset == size and not self._rewritten(meta):
            return 0
        db.execute("BEGIN IMMEDIATE")
        try:
            meta = _meta(db)  # another process may have caught up meanwhile
            if int(meta.get("offset", 0)) > size or self._rewritten(meta):
                realigned = self._realign(db, meta)
                if realigned is None:
                    db.execute("ROLLBACK")
                    return self.rebuild()
                added = realigned
            else:
                added = self._index_from(db, int(meta.get("offset", 0)), int(meta.get("seq", 0)))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return added

    def _realign(self, db: sqlite3.Connection, meta: dict[str, str]) -> int | None:
        """Catches up with a ledger that changed other than by appending — a merge or a
        rebase put lines in the middle, or took the other side's lines first — by
        indexing only what changed: the indexed lines still at their offset (a prefix)
        and those moved by a constant shift (a suffix) are found by binary search on
        their keys, the rows in between are replaced by the lines now between them, and
        the suffix's offsets are shifted. New rows get ``seq`` after every existing one,
        so a reader that remembers the last ``seq`` it saw still sees them. Runs inside
        the caller's write transaction. Returns None when most of a large file changed
        (a parallel cold build is then faster). Trusts, like the append path, that lines
        are not rewritten in place: that is tampering, which ``trace verify`` reports."""
        rows = db.execute("SELECT offset, lkey, seq FROM records ORDER BY offset").fetchall()
        old_end = int(meta.get("offset", 0))
        try:
            f = self.ledger.open("rb")
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
        if new_end >= _PARALLEL_MIN and end - start > new_end // 2:
            return None
        top = max((seq for _, _, seq in rows), default=0)  # never reuse a seq
        stale = [(seq,) for _, _, seq in rows[first:keep]]
        db.executemany("DELETE FROM records WHERE seq = ?", stale)
        if stale:
            db.execute("CREATE TEMP TABLE IF NOT EXISTS gone(seq INTEGER PRIMARY KEY)")
            db.execute("DELETE FROM gone")
            db.executemany("INSERT INTO gone VALUES (?)", stale)
            db.execute("DELETE FROM touches WHERE seq IN (SELECT seq FROM gone)")
        if shift and keep < len(rows):
            db.execute(
                "UPDATE records SET offset = offset + ? WHERE offset >= ?",
                (shift, rows[keep][0]),
            )
        added = _index_lines(db, self.ledger, start, top, end, None)
        _set_meta(
            db,
            {
                "offset": str(new_end),
                "seq": str(top + added),
                "head_start": str(head_start),
                "head_hash": bytes_hash(head_line),
            },
        )
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

    def _index_from(
        self,
        db: sqlite3.Connection,
        offset: int,
        seq: int,
        *,
        end: int | None = None,
        extra: Callable[[], int] | None = None,
    ) -> int:
        """Index the complete lines from ``offset`` (up to ``end``), numbering them after
        ``seq``; ``extra`` adds another process's bytes to the progress reported."""
        progress = self._progress
        on_block = None
        if progress is not None:
            size = self.ledger.stat().st_size

            def on_block(done: int) -> None:
                progress(done + (extra() if extra is not None else 0), size)

        return _index_lines(db, self.ledger, offset, seq, end, on_block)

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
            f"SELECT DISTINCT {_REF} FROM touches t JOIN records r ON r.seq = t.seq "
            "WHERE t.hkey = ? ORDER BY r.seq DESC LIMIT ?",
            (hash_key(digest), limit),
        )

    def records_for_path(self, path: str, limit: int | None = None) -> list[RecordRef]:
        return self._refs(
            f"SELECT DISTINCT {_REF} FROM touches t JOIN records r ON r.seq = t.seq "
            "WHERE t.path = ? ORDER BY r.seq DESC LIMIT ?",
            (path, -1 if limit is None else limit),
        )

    def records_for_intent(self, intent_id: str, limit: int | None = None) -> list[RecordRef]:
        return self._refs(
            f"SELECT {_REF} FROM records r WHERE intent = ? ORDER BY seq DESC LIMIT ?",
            (intent_id, -1 if limit is None else limit),
        )

    def all_records(self) -> list[RecordRef]:
        return self._refs(f"SELECT {_REF} FROM records r ORDER BY seq")

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
                f"SELECT {_REF}, t.path, t.name FROM touches t JOIN records r ON r.seq = t.seq "
                "WHERE t.path = ? AND t.name = ? ORDER BY r.seq DESC LIMIT ?",
                (path, definition.name, limit),
            ):
                entry = BlameEntry(RecordRef(*row[:8]), row[8], row[9], "definition")
                found.setdefault(row[0], entry)
        for digest in (definition.content_hash if definition else None, content_hash):
            if digest is None:
                continue
            for row in self._query(
                f"SELECT {_REF}, t.path, t.name FROM touches t JOIN records r ON r.seq = t.seq "
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
        with open_sidecar_reader(self.ledger) as f:
            f.seek(ref.offset)
            return json.loads(f.readline())


def _create(path: Path) -> sqlite3.Connection:
    """A new cache file for a cold build: nobody reads it until it is put into place,
    so a crash just leaves a stale temporary file and journaling buys nothing. The page
    cache stays at SQLite's small default: appending rows in rowid order does not need
    more, and CREATE INDEX sorts in runs of up to the cache size, which it does fastest
    when a run fits the CPU caches (a 64 MiB cache made the 1M-record indexes ~1 s slower)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _DDL)
    return db


def _install(built: Path, cache: Path) -> None:
    """Puts a cold build in place without ever replacing a cache file another server may
    have open: a connection left on a replaced file keeps writing its rollback journal
    under the cache's name, where a connection to the new file takes it for a hot
    journal of its own and rolls it back into it (corruption, then "disk I/O error" in
    the other process). A first build is linked in only if no cache exists yet; over an
    existing cache the pages are copied in through SQLite, under its locks."""
    try:
        os.link(built, cache)
    except FileExistsError:
        pass
    else:
        built.unlink()
        return
    try:
        with (
            contextlib.closing(sqlite3.connect(built)) as src,
            contextlib.closing(sqlite3.connect(cache, isolation_level=None)) as live,
        ):
            live.execute("PRAGMA busy_timeout=10000")
            src.backup(live)
    except sqlite3.DatabaseError:
        # Not a database at all: nothing can be reading it, so a rename is safe.
        os.replace(built, cache)
        return
    built.unlink()


def _meta(db: sqlite3.Connection) -> dict[str, str]:
    return dict(db.execute("SELECT key, value FROM meta").fetchall())


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


def _set_meta(db: sqlite3.Connection, values: dict[str, str]) -> None:
    db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())


def _index_lines(
    db: sqlite3.Connection,
    ledger: Path,
    offset: int,
    seq: int,
    end: int | None,
    on_block: Callable[[int], None] | None,
) -> int:
    """Inserts the rows of the complete lines from ``offset`` (to ``end``) numbered after
    ``seq``, and records where indexing stopped; returns the number of lines."""
    records: list[tuple[Any, ...]] = []
    touches: list[tuple[Any, ...]] = []
    head: tuple[int, bytes] | None = None
    first = seq
    stop = end if end is not None else os.stat(ledger).st_size
    rows_of = line_rows if stop - offset >= _FAST_MIN else json_rows
    # A batch is ~200k live tuples, none of them cyclic: the cyclic collector would
    # rescan them every few hundred allocations, a third of the build's time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        for line_offset, line in _scan(ledger, offset, end, on_block):
            seq += 1
            head = (line_offset, line)
            row, rows = rows_of(seq, line_offset, line)
            records.append(row)
            touches.extend(rows)
            if len(records) >= _BATCH:
                _flush(db, records, touches)
        _flush(db, records, touches)
    finally:
        if collecting:
            gc.enable()
    if head is not None:
        _set_meta(
            db,
            {
                "offset": str(head[0] + len(head[1]) + 1),
                "seq": str(seq),
                "head_start": str(head[0]),
                "head_hash": bytes_hash(head[1]),
            },
        )
    return seq - first


def _flush(
    db: sqlite3.Connection, records: list[tuple[Any, ...]], touches: list[tuple[Any, ...]]
) -> None:
    db.executemany("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?)", records)
    db.executemany("INSERT INTO touches VALUES (?,?,?,?,?)", touches)
    records.clear()
    touches.clear()


def _split_point(ledger: Path, size: int) -> int | None:
    """The start of the first line after the middle of the ledger, if there is one."""
    with open_sidecar_reader(ledger) as f:
        f.seek(size // 2)
        f.readline()
        split = f.tell()
    return split if split < size else None


class _Part:
    """The process that indexes the second half of a cold build into its own file
    (a plain interpreter running :func:`_part_main`: multiprocessing's spawn would
    re-import the caller's ``__main__``, which for ``python -m intent_ls`` runs the CLI).
    It prints how many bytes it has indexed after each block, for progress."""

    def __init__(self, proc: subprocess.Popen[bytes], start_offset: int) -> None:
        self.proc = proc
        self.start_offset = start_offset
        self._done = 0
        self._pending = b""
        assert proc.stdout is not None
        self._fd = proc.stdout.fileno()
        os.set_blocking(self._fd, False)

    @classmethod
    def start(cls, ledger: Path, part: Path, start_offset: int) -> _Part | None:
        import subprocess

        package_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        try:
            proc = subprocess.Popen(
                [sys.executable, "-c", _PART_CODE, str(ledger), str(part), str(start_offset)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                env=env,
            )
        except OSError:
            return None
        return cls(proc, start_offset)

    def done(self) -> int:
        """Bytes the worker has indexed so far (reads its reports without blocking)."""
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(self._fd, 65536):
                lines = (self._pending + chunk).split(b"\n")
                self._pending = lines.pop()
                if lines:
                    self._done = int(lines[-1])
        return self._done

    def finish(self) -> bool:
        """Waits for the worker; True if it indexed its whole half."""
        os.set_blocking(self._fd, True)
        self.proc.communicate()
        return self.proc.returncode == 0

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        assert self.proc.stdout is not None
        self.proc.stdout.close()


_PART_CODE = "from intent_ls.ledger.index import _part_main; _part_main()"


def _part_main() -> None:
    """Worker entry point: ``ledger part start`` — index ``ledger`` from byte ``start``
    into the new file ``part``, numbering records from 1."""
    ledger, part, start = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    db = _create(part)
    db.execute("BEGIN")
    _set_meta(db, {"offset": str(start), "seq": "0"})
    _index_lines(db, ledger, start, 0, None, lambda done: print(done - start, flush=True))
    db.execute("COMMIT")
    db.close()
