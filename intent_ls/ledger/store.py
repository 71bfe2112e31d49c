"""The append-only JSONL ledger: locked, one write per record, hash-chained.

Several processes (two editors, the CLI, agent hooks) append to the same file. Each
append takes an exclusive ``flock`` on a sidecar lock file (never on the ledger itself,
so readers are never blocked), repairs a torn tail left by a crashed writer, chains the
record to the previous line and writes the whole line with one ``os.write`` on an
``O_APPEND`` descriptor, then fsyncs (configurable). See ``docs/ledger.md``.
"""

from __future__ import annotations

import copy
import fcntl
import hashlib
import io
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from intent_ls.common import own_writes
from intent_ls.common.hashing import bytes_hash
from intent_ls.common.local_state import ensure_private_dir
from intent_ls.common.safe_io import open_sidecar, open_sidecar_reader
from intent_ls.ledger.records import METADATA_KEY

LEDGER_RELPATH = Path(".orchestration") / "agent_trace.jsonl"
#: ``prev`` of the first record: no line precedes it.
GENESIS = "sha256:" + "0" * 64
_TAIL_CHUNK = 64 * 1024


def ledger_path(root: Path) -> Path:
    return root / LEDGER_RELPATH


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_bytes(record: dict[str, Any]) -> bytes:
    """The one serialization the ledger writes and ``verify`` checks byte for byte."""
    return _CANONICAL.encode(record).encode("utf-8")


def record_digest(record: dict[str, Any]) -> str:
    """Hash of the record without its own ``digest`` field: it protects the last line,
    which no later ``prev`` covers."""
    meta = record.get("metadata", {}).get(METADATA_KEY, {})
    saved = meta.pop("digest", None)
    try:
        return "sha256:" + hashlib.sha256(canonical_bytes(record)).hexdigest()
    finally:
        if saved is not None:
            meta["digest"] = saved


def seal(record: dict[str, Any], prev: str) -> bytes:
    """Sets the chain fields on ``record`` (in place) and returns its line, without newline."""
    meta = record.setdefault("metadata", {}).setdefault(METADATA_KEY, {})
    meta.pop("digest", None)
    meta["prev"] = prev
    meta["digest"] = record_digest(record)
    return canonical_bytes(record)


class Ledger:
    """One ledger file. Safe to share between threads; processes coordinate via flock."""

    def __init__(self, path: Path, *, fsync: bool = True) -> None:
        self.path = Path(path)
        self.fsync = fsync
        # The lock file lives in the never-committed local directory: it is process
        # coordination, not history, and must not show up in the user's `git status`.
        self.lock_path = self.path.parent / ".local" / (self.path.name + ".lock")
        self.quarantine_path = self.path.with_name(self.path.name + ".quarantine")
        self._thread_lock = threading.Lock()

    @contextmanager
    def locked(self) -> Iterator[None]:
        """The writers' lock: no record is appended while it is held."""
        with self._thread_lock:
            ensure_private_dir(self.lock_path.parent)
            fd = open_sidecar(self.lock_path, os.O_RDWR | os.O_CREAT)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        """Appends a copy of ``record`` with ``prev``/``digest`` set; returns that copy."""
        record = copy.deepcopy(record)
        with self.locked():
            fd = open_sidecar(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND)
            try:
                last = self._repair_tail(fd)
                line = seal(record, bytes_hash(last) if last is not None else GENESIS)
                own_writes.note(self.path, line)  # not a change of a call under way
                view = memoryview(line + b"\n")
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                if self.fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)
        return record

    def _repair_tail(self, fd: int) -> bytes | None:
        """Returns the last good line (without newline), quarantining a torn or unparsable
        final line first. Runs under the lock, so no writer is mid-line."""
        size = os.fstat(fd).st_size
        while size:
            start, tail = _last_line(fd, size)
            complete = tail.endswith(b"\n")
            body = tail[:-1] if complete else tail
            if complete and _parses(body):
                return body
            self._quarantine(tail if complete else tail + b"\n")
            os.ftruncate(fd, start)
            if self.fsync:
                os.fsync(fd)
            size = start
        return None

    def _quarantine(self, data: bytes) -> None:
        qfd = open_sidecar(self.quarantine_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            os.write(qfd, data)
            if self.fsync:
                os.fsync(qfd)
        finally:
            os.close(qfd)

    def iter_lines(self) -> Iterator[tuple[int, bytes]]:
        """(byte offset, line without newline) of every complete line, streaming."""
        try:
            f = open_sidecar_reader(self.path)
        except FileNotFoundError:
            return
        with f:
            offset = 0
            for raw in f:
                if not raw.endswith(b"\n"):
                    return
                yield offset, raw[:-1]
                offset += len(raw)

    def read_records(self) -> Iterator[dict[str, Any]]:
        for _, line in self.iter_lines():
            yield json.loads(line)


def open_snapshot(path: Path) -> BinaryIO:
    """A reader of the ledger as it stood at one instant between appends: its size is
    taken under a shared lock on the writers' lock file (a writer holds it exclusively
    from its first byte to its last), and nothing past that size is read. So a reader
    racing an appender never sees a half-written line; a torn tail it does see was left
    by a writer that died. Raises FileNotFoundError when there is no ledger."""
    path = Path(path)
    fd = open_sidecar(path, os.O_RDONLY)
    try:
        size = _settled_size(Ledger(path).lock_path, fd)
    except BaseException:
        os.close(fd)
        raise
    return io.BufferedReader(_Prefix(fd, size))


def snapshot_size(path: Path, fd: int) -> int:
    """The size of the ledger open on ``fd`` at an instant between appends (see
    :func:`open_snapshot`), for a reader that reads it by other means than a stream."""
    return _settled_size(Ledger(path).lock_path, fd)


def _settled_size(lock_path: Path, fd: int) -> int:
    try:
        lock = open_sidecar(lock_path, os.O_RDONLY)
    except FileNotFoundError:  # nobody has appended through a lock yet
        return os.fstat(fd).st_size
    try:
        fcntl.flock(lock, fcntl.LOCK_SH)
        return os.fstat(fd).st_size
    finally:
        os.close(lock)


class _Prefix(io.RawIOBase):
    """The first ``size`` bytes of a file descriptor (which it owns)."""

    def __init__(self, fd: int, size: int) -> None:
        self._fd = fd
        self._left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        want = min(len(buffer), self._left)
        if want <= 0:
            return 0
        data = os.read(self._fd, want)
        buffer[: len(data)] = data
        self._left -= len(data)
        return len(data)

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


def _parses(body: bytes) -> bool:
    try:
        return isinstance(json.loads(body), dict)
    except ValueError:
        return False


def _last_line(fd: int, size: int) -> tuple[int, bytes]:
    """(start offset, bytes) of the final line, including its newline if it has one."""
    end = size
    search_end = size - 1  # a final newline terminates the last line, it does not start one
    chunks: list[bytes] = []
    pos = search_end
    while pos > 0:
        read_from = max(0, pos - _TAIL_CHUNK)
        chunk = os.pread(fd, pos - read_from, read_from)
        idx = chunk.rfind(b"\n")
        if idx >= 0:
            start = read_from + idx + 1
            return start, b"".join([chunk[idx + 1 :], *reversed(chunks)]) + os.pread(
                fd, end - search_end, search_end
            )
        chunks.append(chunk)
        pos = read_from
    return 0, os.pread(fd, end, 0)
