"""The ledger bytes an export may read: verified, and read no further than verified.

A first export verifies the whole ledger (``trace verify``'s algorithm) while DuckDB reads
the file, and keeps the result only if the file was the same from before the verification
began until after DuckDB finished (same inode, size and modification time: an append or a
rewrite in between makes the run start over).

The next run need not verify a million lines again to export a thousand. The export
remembers a *checkpoint*: the ledger's size then, the SHA-256 of each 64 MiB chunk of those
bytes and the hash of its last line. If the ledger still starts with exactly those bytes,
only the lines after them are checked — each line on its own, and the chain, which for
appended lines is simply each ``prev`` naming the line before, the first naming the
checkpoint's last line. Any other shape (a merge record, a ledger rewritten by a merge
that put records in the middle, a torn line) falls back to verifying everything, which
also gives the message.

Hashing the prefix is then most of a re-run's cost, so it runs on a thread pool (hashlib
releases the GIL), chunk by chunk, while the new lines are verified and staged: the
caller asks :meth:`Snapshot.prefix_intact` only before publishing.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from intent_ls.common.hashing import bytes_hash
from intent_ls.common.safe_io import open_sidecar
from intent_ls.ledger.store import snapshot_size
from intent_ls.ledger.verify import Problem, check_line, verify_ledger

_CHECKPOINT_VERSION = 2
#: The unit of the prefix hash: chunks hash in parallel, and all but the last chunk of a
#: checkpoint carry over to the next one unchanged.
CHUNK = 64 * 1024 * 1024


class TamperedLedger(Exception):
    """The ledger does not verify: nothing may be exported."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(f"{problem.line}: {problem.reason}")
        self.problem = problem


@attrs.frozen
class Checkpoint:
    """The verified prefix of the ledger an export covers, and the parts it wrote."""

    size: int
    chunks: tuple[str, ...]
    tip: str
    parts: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "version": _CHECKPOINT_VERSION,
            "size": self.size,
            "chunks": list(self.chunks),
            "tip": self.tip,
            "parts": list(self.parts),
        }


def read_checkpoint(path: Path) -> Checkpoint | None:
    """The checkpoint, or None when there is none or it is not one this version wrote
    (then the run verifies everything: a checkpoint only ever saves time)."""
    try:
        return parse_checkpoint(path.read_bytes())
    except OSError:
        return None


def parse_checkpoint(raw: bytes) -> Checkpoint | None:
    try:
        data = json.loads(raw)
        if data.get("version") != _CHECKPOINT_VERSION:
            return None
        checkpoint = Checkpoint(
            int(data["size"]),
            tuple(str(c) for c in data["chunks"]),
            str(data["tip"]),
            tuple(str(p) for p in data["parts"]),
        )
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None
    return checkpoint if len(checkpoint.chunks) == _chunk_count(checkpoint.size) else None


def _chunk_count(size: int) -> int:
    return -(-size // CHUNK)


@attrs.frozen
class Identity:
    """What must not change while DuckDB reads the ledger by its path."""

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, stat: os.stat_result) -> Identity:
        return cls(stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


@attrs.define
class Snapshot:
    """The ledger open for export, up to ``size``. ``tail`` holds the lines appended
    since the checkpoint, verified on their own, when they have that shape (then
    :meth:`prefix_intact` says whether the rest is still the verified ledger); otherwise
    it is None and :meth:`verify` checks the whole file."""

    path: Path
    fd: int
    size: int
    identity: Identity
    tail: bytes | None
    _previous: Checkpoint | None
    _prefix: list[Future[str]]
    _chunks: list[Future[str]]
    _tip: str

    def verify(self) -> None:
        result = verify_ledger(self.path)
        if result.problem is not None:
            raise TamperedLedger(result.problem)

    def prefix_intact(self) -> bool:
        """The ledger still starts with the bytes the checkpoint verified."""
        if self._previous is None or not self._prefix:
            return False
        return tuple(f.result() for f in self._prefix) == self._previous.chunks

    def checkpoint(self, parts: tuple[str, ...]) -> Checkpoint:
        return Checkpoint(self.size, tuple(f.result() for f in self._chunks), self._tip, parts)

    def unchanged(self) -> bool:
        """The path still names the file that was verified, as it was."""
        try:
            now = os.lstat(self.path)
        except OSError:
            return False
        return Identity.of(os.fstat(self.fd)) == self.identity == Identity.of(now)


@contextmanager
def open_ledger(path: Path, previous: Checkpoint | None, parts: list[str]) -> Iterator[Snapshot]:
    """The ledger at ``path`` as of now. ``previous`` is used only when the export's parts
    are exactly those it lists (parts removed by hand, or written by a run that did not
    get to update it, mean it no longer describes the export)."""
    fd = open_sidecar(path, os.O_RDONLY)
    try:
        size = snapshot_size(path, fd)
        identity = Identity.of(os.fstat(fd))
        usable = previous if previous is not None and list(previous.parts) == parts else None
        if usable is not None and usable.size > size:
            usable = None
        if size == 0:
            yield Snapshot(path, fd, 0, identity, None, None, [], [], "")
            return
        with ThreadPoolExecutor(min(4, os.cpu_count() or 2)) as pool:

            def hashed(start: int, end: int) -> Future[str]:
                return pool.submit(_sha256, fd, start, end)

            chunks = [
                hashed(i * CHUNK, min(size, (i + 1) * CHUNK)) for i in range(_chunk_count(size))
            ]
            tail = None
            prefix: list[Future[str]] = []
            if usable is not None:
                tail = _appended(_pread(fd, usable.size, size), usable.tip)
            if usable is not None and tail is not None:
                whole = usable.size // CHUNK
                prefix = chunks[:whole]
                if usable.size % CHUNK:  # a partial last chunk covers fewer bytes now
                    prefix.append(hashed(whole * CHUNK, usable.size))
            tip = bytes_hash(_last_line(fd, size))
            yield Snapshot(path, fd, size, identity, tail, usable, prefix, chunks, tip)
    finally:
        os.close(fd)


_READ = 8 * 1024 * 1024


def _pread(fd: int, start: int, end: int) -> bytes:
    parts = []
    while start < end:
        data = os.pread(fd, min(_READ, end - start), start)
        if not data:
            raise OSError(f"the ledger ended at byte {start} while it was read")
        parts.append(data)
        start += len(data)
    return b"".join(parts)


def _sha256(fd: int, start: int, end: int) -> str:
    """Reads with ``pread`` (no shared offset, no mapping: the bytes do not stay in the
    process's memory) and hashes, both without the GIL."""
    digest = hashlib.sha256()
    while start < end:
        data = _pread(fd, start, min(end, start + _READ))
        digest.update(data)
        start += len(data)
    return digest.hexdigest()


def _last_line(fd: int, size: int) -> bytes:
    """The last line, without its newline, of a file of ``size`` bytes that ends in one."""
    end = size - 1
    at = end
    while at > 0:
        start = max(0, at - 64 * 1024)
        found = _pread(fd, start, at).rfind(b"\n")
        if found >= 0:
            return _pread(fd, start + found + 1, end)
        at = start
    return _pread(fd, 0, end)


def _appended(tail: bytes, tip: str) -> bytes | None:
    """``tail`` when it is a run of good lines each naming the one before it, the first
    naming ``tip``; None when that is not so and the whole ledger must be verified."""
    if tail and not tail.endswith(b"\n"):
        return None
    expected = tip
    start = 0
    while start < len(tail):
        end = tail.index(b"\n", start) + 1
        raw = tail[start:end]
        reason, links = check_line(raw)
        if reason is not None or links.parents or links.absent or links.prev != expected:
            return None
        expected = bytes_hash(raw[:-1])
        start = end
    return tail
