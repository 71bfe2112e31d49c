"""The second process of a parallel verify: it checks the lines after the split point
and hands back each line's hash and links, block by block."""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any, BinaryIO

from intent_ls.ledger.verify.interest import Interest
from intent_ls.ledger.verify.lines import _examine
from intent_ls.ledger.verify.results import WantedLine

if TYPE_CHECKING:
    import subprocess

#: The share of a parallel verify this process checks line by line (it also runs the
#: chain over every line and replays the other's results): both then take about as long.
_OWN_SHARE = 0.48
_BATCH = 8192
_BLOCK = 4 * 1024 * 1024


def _split_point(f: BinaryIO, size: int) -> int | None:
    """The start of the first line after :data:`_OWN_SHARE` of the ledger, if any."""
    f.seek(int(size * _OWN_SHARE))
    f.readline()
    split = f.tell()
    f.seek(0)
    return split if split < size else None


#: What the helper writes per block of lines: the (hash, links) of each good line, the
#: lines wanted (numbered from 1 in its part), the first bad line's (number, reason) if
#: any, and the byte offset reached.
_Batch = tuple[list[tuple[Any, ...]], list[WantedLine], tuple[int, str] | None, int]


class _Helper:
    """The second process of a parallel verify (:func:`_helper_main`). It reads the file
    this process opened (the descriptor is passed on, and read by position), not
    whatever the path names by then. It writes each block's results, marshalled and
    length-prefixed, to an unnamed temporary file, and one byte to its stdout when a block
    is complete: this process replays blocks as they come, while the helper goes on."""

    def __init__(self, proc: subprocess.Popen[bytes], out: IO[bytes]) -> None:
        self.proc = proc
        self.out = out

    @classmethod
    def start(cls, fd: int, start: int, end: int, interest: Interest | None) -> _Helper | None:
        import tempfile

        from intent_ls.common.child import python_child

        wanted = None if interest is None else (sorted(interest.paths), sorted(interest.keys))
        with tempfile.TemporaryFile() as given:
            marshal.dump(wanted, given)
            given.seek(0)
            out = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
            args = (fd, out.fileno(), start, end)
            try:
                proc = python_child(
                    _HELPER_CODE, *map(str, args), stdin=given, pass_fds=(fd, out.fileno())
                )
            except OSError:
                out.close()
                return None
        return cls(proc, out)

    def batches(self) -> Iterator[_Batch]:
        """The helper's blocks as each is complete; fewer if it fails (then its part is
        checked here from where they end)."""
        assert self.proc.stdout is not None
        at = 0
        while self.proc.stdout.read(1):
            size = int.from_bytes(_pread_all(self.out.fileno(), 8, at))
            yield marshal.loads(_pread_all(self.out.fileno(), size, at + 8))
            at += 8 + size

    def stop(self) -> None:
        from intent_ls.common.child import stop_child

        stop_child(self.proc)
        self.out.close()


def _pread_all(fd: int, size: int, at: int) -> bytes:
    parts = []
    while size:
        part = os.pread(fd, size, at)
        if not part:
            raise EOFError("the helper's block is cut short")
        parts.append(part)
        size -= len(part)
        at += len(part)
    return b"".join(parts)


_HELPER_CODE = "from intent_ls.ledger.verify.parallel import _helper_main; _helper_main()"


def _helper_main() -> None:
    """``fd out start end``: checks the lines of the ledger open on ``fd`` from byte
    ``start`` (a line start) to ``end`` one by one and appends :data:`_Batch` records to
    ``out`` (see :class:`_Helper`), stopping after the first bad line."""
    fd, out, start, end = (int(arg) for arg in sys.argv[1:5])
    given = marshal.load(sys.stdin.buffer)
    interest = None if given is None else Interest(frozenset(given[0]), frozenset(given[1]))

    def emit(batch: _Batch) -> None:
        data = marshal.dumps(batch)
        view = memoryview(len(data).to_bytes(8) + data)
        while view:
            view = view[os.write(out, view) :]
        sys.stdout.buffer.write(b".")
        sys.stdout.buffer.flush()

    items: list[tuple[Any, ...]] = []
    wanted: list[WantedLine] = []
    offset = start
    for number, raw in enumerate(_pread_lines(fd, start, end), start=1):
        reason, item, proven = _examine(raw)
        if reason is not None:
            emit((items, wanted, (number, reason), offset))
            return
        items.append(item)
        if interest is not None and not (proven and not interest.wants(raw[:-1])):
            wanted.append((number, offset, raw[:-1]))
        offset += len(raw)
        if len(items) >= _BATCH:
            emit((items, wanted, None, offset))
            items, wanted = [], []
    emit((items, wanted, None, offset))


def _pread_lines(fd: int, offset: int, end: int) -> Iterator[bytes]:
    """:func:`~intent_ls.ledger.verify.run._raw_lines` by position (the descriptor's
    offset is the parent's)."""
    pending = b""
    while offset < end:
        block = os.pread(fd, min(_BLOCK, end - offset), offset)
        if not block:
            break
        offset += len(block)
        *lines, pending = (pending + block).split(b"\n")
        for line in lines:
            yield line + b"\n"
    if pending:
        yield pending
