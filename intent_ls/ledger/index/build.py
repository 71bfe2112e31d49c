"""Writing rows into a cache file: from a byte offset on (catch-up), or a cold build.

A cold build writes a fresh file, put in place (:func:`install`) only once complete so
readers never see half. A large ledger is split in the middle, at a line boundary, and a
second process indexes the half after it into a shard of its own (:mod:`.schema`), with
its own indexes, while this one does the first half: parsing is most of the work and
the GIL would keep it on one core, and neither the indexes nor a merge of the rows are
left to one process at the end. Indexes are created after the bulk insert, which is
several times cheaper than maintaining them row by row.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intent_ls.common.child import python_child, stop_child
from intent_ls.common.hashing import bytes_hash
from intent_ls.common.safe_io import open_sidecar_reader
from intent_ls.ledger.index import fastpath, native
from intent_ls.ledger.index.rows import json_block
from intent_ls.ledger.index.schema import (
    INDEXES,
    RECORD_WIDTH,
    SCHEMA_VERSION,
    TOUCH_WIDTH,
    Progress,
    create,
    insert_rows,
    read_meta,
    shard_names,
    shard_path,
    write_meta,
)
from intent_ls.ledger.index.strings import Strings

if TYPE_CHECKING:
    import subprocess

#: Bytes read at a time: a block's lines are decoded while it is still in the CPU's
#: caches (8 MiB blocks cost ~5% more CPU).
_BLOCK = 1024 * 1024
#: Records whose rows are inserted together (~75 MB of row values at most).
_BATCH = 50_000
#: Below this a second process costs more to start than it saves.
PARALLEL_MIN = 32 * 1024 * 1024
#: The share of a parallel cold build this process parses (:func:`_split_point`), with the
#: C writer and without it (the other process's start and line count weigh more when the
#: rows cost less).
_OWN_SHARE = {True: 0.53, False: 0.51}


def _blocks(ledger: Path, start: int, end: int | None) -> Iterator[tuple[int, memoryview, int]]:
    """(offset, block, head) of the complete lines from ``start`` up to ``end`` (a line
    boundary, or None for the end of the file), a block at a time, each block ending with
    a newline, ``head`` where its last line starts; a torn tail is left for later. Each
    block is a view of one buffer the next read reuses (fresh memory for each 1 MiB
    read and its copy cost 300k page faults at 1M records, ~10% of a cold build's CPU):
    read it before asking for the next. A line longer than the buffer gets a larger one."""
    buf = bytearray(_BLOCK)
    with open_sidecar_reader(ledger) as f:
        f.seek(start)
        offset, held = start, 0  # held: the start of a line, at the start of buf
        while end is None or offset + held < end:
            if held == len(buf):
                buf = buf + bytes(len(buf))
            room = len(buf) - held
            want = room if end is None else min(room, end - offset - held)
            with memoryview(buf) as view:
                got = f.readinto(view[held : held + want])
            if not got:
                break
            filled = held + got
            cut = buf.rfind(b"\n", 0, filled) + 1
            if not cut:
                held = filled
                continue
            with memoryview(buf) as view:
                yield offset, view[:cut], buf.rfind(b"\n", 0, cut - 1) + 1
            offset += cut
            held = filled - cut
            buf[:held] = buf[cut:filled]


def index_lines(
    db: sqlite3.Connection,
    ledger: Path,
    offset: int,
    seq: int,
    end: int | None,
    on_block: Callable[[int], None] | None,
    *,
    new_file: Path | None = None,
) -> int:
    """Inserts the rows of the complete lines from ``offset`` (to ``end``) numbered after
    ``seq``, and records where indexing stopped; returns the number of lines.
    ``new_file``: ``db`` is this file, just created, which nobody reads yet (a cold
    build's): ``db`` must be out of a transaction, and the rows are written in
    transactions of this function's own, by the C writer if it was compiled
    (:mod:`.native`)."""
    strings = Strings(db)
    first = seq
    stop = end if end is not None else os.stat(ledger).st_size
    fast = stop - offset >= fastpath.FAST_MIN
    in_c = new_file is not None and fast and native.available()
    writer = native.NativeRows(new_file, strings) if in_c else _PythonRows(db, strings, fast)
    own_transaction = new_file is not None and not in_c
    if own_transaction:
        db.execute("BEGIN")
    with _no_cyclic_collection():
        try:
            seq, last = _write_blocks(writer, ledger, offset, seq, end, on_block)
            writer.close()
            strings.flush()  # the texts the C writer named (the Python writer wrote its own)
            if last is not None:
                _write_stop(db, seq, last)
            if own_transaction:
                db.execute("COMMIT")
        except BaseException:
            writer.abort()
            if new_file is not None and db.in_transaction:
                db.execute("ROLLBACK")
            raise
    return seq - first


@contextlib.contextmanager
def _no_cyclic_collection() -> Iterator[None]:
    """The rows waiting for an insert are millions of objects, none of them cyclic: the
    cyclic collector would rescan them every few hundred allocations."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


class _PythonRows:
    """The Python writer: each block's rows gathered in flat lists of column values
    (:func:`~.fastpath.fast_block`, or json.loads for a few lines), inserted a batch at a
    time through ``db``, in the caller's transaction."""

    def __init__(self, db: sqlite3.Connection, strings: Strings, fast: bool) -> None:
        self._db = db
        self._strings = strings
        self._rows_of = fastpath.fast_block if fast else json_block
        self._records: list[Any] = []
        self._touches: list[Any] = []

    def block(self, block: memoryview, base: int, seq: int) -> int:
        """Adds the rows of ``block``; returns the last number given."""
        seq = self._rows_of(bytes(block), base, seq, self._strings, self._records, self._touches)
        if len(self._records) >= _BATCH * RECORD_WIDTH:
            self.close()  # a batch is in: more rows may follow
        return seq

    def close(self) -> None:
        """Inserts the rows waiting."""
        _flush(self._db, self._strings, self._records, self._touches)

    def abort(self) -> None:
        """Nothing to undo: the rows are the caller's transaction's, rolled back by it."""


def _write_blocks(
    writer: native.NativeRows | _PythonRows,
    ledger: Path,
    offset: int,
    seq: int,
    end: int | None,
    on_block: Callable[[int], None] | None,
) -> tuple[int, tuple[int, int, bytes] | None]:
    """Writes the rows of each block; returns the last number given and, when there was a
    block, (where it ends, where its last line starts, that line)."""
    last: tuple[int, int, bytes] | None = None
    for at, block, head in _blocks(ledger, offset, end):
        seq = writer.block(block, at, seq)
        last = at + len(block), at + head, bytes(block[head:-1])
        if on_block is not None:
            on_block(last[0])
    return seq, last


def _write_stop(db: sqlite3.Connection, seq: int, last: tuple[int, int, bytes]) -> None:
    """Records where indexing stopped, and the last line indexed (where it starts, its
    hash): a catch-up starts at ``offset`` unless that line shows the ledger rewritten."""
    stop, head_start, head_line = last
    write_meta(
        db,
        {
            "offset": str(stop),
            "seq": str(seq),
            "head_start": str(head_start),
            "head_hash": bytes_hash(head_line),
        },
    )


def _flush(
    db: sqlite3.Connection, strings: Strings, records: list[Any], touches: list[Any]
) -> None:
    insert_rows(db, "records", RECORD_WIDTH, records)
    insert_rows(db, "touches", TOUCH_WIDTH, touches)
    strings.flush()


def index_from(
    db: sqlite3.Connection,
    ledger: Path,
    offset: int,
    seq: int,
    progress: Progress | None,
    *,
    end: int | None = None,
    extra: Callable[[], int] | None = None,
    new_file: Path | None = None,
) -> int:
    """:func:`index_lines` reporting ``progress`` over the whole ledger; ``extra`` adds
    another process's bytes to the progress reported."""
    on_block = None
    if progress is not None:
        size = ledger.stat().st_size

        def on_block(done: int) -> None:
            progress(done + (extra() if extra is not None else 0), size)

    return index_lines(db, ledger, offset, seq, end, on_block, new_file=new_file)


def cold_build(ledger: Path, cache: Path, progress: Progress | None) -> tuple[Path, int]:
    """A complete cache of ``ledger`` in a new file beside ``cache``: (its path, the
    records indexed). The caller puts it in place with :func:`install`; the shard it
    names (a parallel build's second half) is already in its place."""
    # Unguessable names: SQLite follows a symlink planted at a name known in advance.
    nonce = os.urandom(8).hex()
    tmp = cache.with_name(f"{cache.name}.{nonce}.tmp")
    shard = shard_path(cache, nonce)
    for stale in (tmp, shard):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
    size = ledger.stat().st_size if ledger.exists() else 0
    split = _split_point(ledger, size) if size >= PARALLEL_MIN else None
    worker = _Part.start(ledger, shard, split) if split is not None else None
    if worker is None:
        split = None
    adopted = False
    try:
        db = create(tmp)
    except BaseException:
        if worker is not None:
            worker.stop()
        raise
    try:
        write_meta(db, {"version": SCHEMA_VERSION, "offset": "0", "seq": "0"})
        added = 0
        if size:
            extra = worker.done if worker is not None else None
            added = index_from(db, ledger, 0, 0, progress, end=split, extra=extra, new_file=tmp)
        # This half's indexes while the other process is still at its own.
        db.executescript(INDEXES)
        if worker is not None:
            added, adopted = _adopt(db, ledger, worker, shard, added, progress)
    except BaseException:
        db.close()
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    finally:
        db.close()
        if worker is not None:
            worker.stop()
        if not adopted:
            with contextlib.suppress(FileNotFoundError):
                shard.unlink()
    return tmp, added


def _adopt(
    db: sqlite3.Connection,
    ledger: Path,
    worker: _Part,
    shard: Path,
    added: int,
    progress: Progress | None,
) -> tuple[int, bool]:
    """Names the worker's shard in this file's meta once the worker has indexed its half
    completely, numbered right after this half's ``added`` records: (records indexed in
    all, whether the shard is kept). If the worker failed, or its numbers do not follow
    these (the ledger changed under the build), indexes its half here instead."""
    meta: dict[str, str] = {}
    if worker.finish():
        with (
            contextlib.suppress(sqlite3.DatabaseError),
            contextlib.closing(sqlite3.connect(shard)) as part,
        ):
            meta = read_meta(part)
    if meta.get("base") != str(added) or meta.get("version") != SCHEMA_VERSION:
        db.execute("BEGIN")
        added += index_from(db, ledger, worker.start_offset, added, progress)
        db.execute("COMMIT")
        return added, False
    if int(meta["seq"]) == added:  # nothing complete after the middle
        return added, False
    write_meta(
        db,
        {
            "offset": meta["offset"],
            "seq": meta["seq"],
            "head_start": meta["head_start"],
            "head_hash": meta["head_hash"],
            "shards": shard.name,
        },
    )
    if progress is not None:
        progress(int(meta["offset"]), ledger.stat().st_size)
    return int(meta["seq"]), True


def install(built: Path, cache: Path) -> None:
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
    old = _shards_of(cache)
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
    # A reader still on the old shards has them open; it sees the new meta on its next
    # query (the cache file changed) and attaches the new ones.
    for name in set(old) - set(_shards_of(cache)):
        with contextlib.suppress(FileNotFoundError):
            cache.with_name(name).unlink()


def _shards_of(cache: Path) -> list[str]:
    """The shards a cache file names; none if it is not a cache at all."""
    try:
        with contextlib.closing(sqlite3.connect(cache)) as db:
            return shard_names(cache, read_meta(db))
    except (sqlite3.DatabaseError, ValueError):
        return []


def _split_point(ledger: Path, size: int) -> int | None:
    """The start of the first line after :data:`_OWN_SHARE` of the ledger, if there is
    one: each process then indexes one half and sorts its indexes. A little past the
    middle: the other process first starts an interpreter and counts the lines before
    its half (~3% of its work on 1M records, ~6% with the C writer)."""
    with open_sidecar_reader(ledger) as f:
        f.seek(int(size * _OWN_SHARE[native.available()]))
        f.readline()
        split = f.tell()
    return split if split < size else None


class _Part:
    """The process that indexes the second half of a cold build into a shard
    (:func:`python_child` running :func:`_part_main`). It prints how many bytes it has
    indexed after each block, for progress."""

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
        try:
            proc = python_child(_PART_CODE, str(ledger), str(part), str(start_offset))
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
        stop_child(self.proc)


_PART_CODE = "from intent_ls.ledger.index.build import _part_main; _part_main()"


def _part_main() -> None:
    """Worker entry point: ``ledger shard start`` — index ``ledger`` from byte ``start``
    into the new file ``shard``, with its indexes, numbering records after the lines
    before ``start`` (``base`` in its meta, for the other process to check)."""
    ledger, shard, start = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    base = _lines_before(ledger, start)
    db = create(shard)
    write_meta(db, {"version": SCHEMA_VERSION, "offset": str(start), "seq": str(base)})

    def report(done: int) -> None:
        print(done - start, flush=True)

    index_lines(db, ledger, start, base, None, report, new_file=shard)
    db.executescript(INDEXES)
    write_meta(db, {"base": str(base)})  # last: a shard without it is not complete
    db.close()


def _lines_before(ledger: Path, end: int) -> int:
    """The number of lines that end before byte ``end`` (a line boundary)."""
    count = 0
    buf = bytearray(_BLOCK)
    with open_sidecar_reader(ledger) as f, memoryview(buf) as view:
        while end > 0 and (got := f.readinto(view[: min(_BLOCK, end)])):
            count += buf.count(b"\n", 0, got)
            end -= got
    return count
