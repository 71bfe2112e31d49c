"""One verifying pass over a ledger: every line checked in order (some by a second
process, :mod:`~intent_ls.ledger.verify.parallel`) and the chain run over them all."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from intent_ls.common.safe_io import open_sidecar
from intent_ls.ledger.store import snapshot_size
from intent_ls.ledger.verify import parallel
from intent_ls.ledger.verify.chain import Chain
from intent_ls.ledger.verify.interest import Interest
from intent_ls.ledger.verify.lines import _examine
from intent_ls.ledger.verify.parallel import _Batch, _Helper, _split_point
from intent_ls.ledger.verify.results import Problem, VerifyResult, WantedLine

#: Below this a second process costs more to start than it saves.
PARALLEL_MIN = 32 * 1024 * 1024


def verify_ledger(
    path: Path,
    progress: Callable[[int, int], None] | None = None,
    *,
    interest: Interest | None = None,
) -> VerifyResult:
    """``progress(bytes read, size)`` is called every few thousand lines. With
    ``interest``, the result also holds the lines it asks for (:attr:`VerifyResult.wanted`).

    A ledger of :data:`PARALLEL_MIN` bytes or more is checked by two processes: the
    per-line checks are independent, so a second process checks the lines after
    :data:`~intent_ls.ledger.verify.parallel._OWN_SHARE` of the file and hands back each
    line's hash and links; this one checks its own part, then runs the chain over the
    other's results in line order, so the verdict and its line are the serial
    algorithm's."""
    try:
        fd = open_sidecar(Path(path), os.O_RDONLY)
    except FileNotFoundError:
        return VerifyResult(0, None)
    with os.fdopen(fd, "rb") as f:
        size = snapshot_size(Path(path), fd)
        split = _split_point(f, size) if size >= PARALLEL_MIN else None
        helper = _Helper.start(fd, split, size, interest) if split is not None else None
        try:
            run = _Run(interest, progress, size)
            problem = run.lines(_raw_lines(f, 0, size if split is None else split), 0)
            if problem is None and helper is not None:
                problem = run.replay(helper.batches())
            if problem is None and run.offset < size:  # no helper, or it failed midway
                f.seek(run.offset)
                problem = run.lines(_raw_lines(f, run.offset, size), run.offset)
        finally:
            if helper is not None:
                helper.stop()
    if problem is None:
        problem = run.chain.finish()
    return VerifyResult(run.chain.count, problem, tuple(run.wanted))


class _Run:
    """One pass of the chain over every line in order, its own lines checked here or
    the helper's replayed, collecting the lines the interest wants."""

    def __init__(
        self, interest: Interest | None, progress: Callable[[int, int], None] | None, size: int
    ) -> None:
        self.chain = Chain()
        self.interest = interest
        self.progress = progress
        self.size = size
        self.number = 0
        self.offset = 0  # where the lines checked so far end
        self.wanted: list[WantedLine] = []

    def lines(self, raws: Iterable[bytes], offset: int) -> Problem | None:
        chain, interest, progress = self.chain, self.interest, self.progress
        number = self.number
        for raw in raws:
            number += 1
            reason, item, proven = _examine(raw)
            if reason is not None:
                return Problem(number, reason)
            reason = chain.add(number, *item)
            if reason is not None:
                return Problem(number, reason)
            if interest is not None and not (proven and not interest.wants(raw[:-1])):
                self.wanted.append((number, offset, raw[:-1]))
            offset += len(raw)
            if progress is not None and not number % parallel._BATCH:
                progress(offset, self.size)
        self.number, self.offset = number, offset
        return None

    def replay(self, batches: Iterable[_Batch]) -> Problem | None:
        chain, base = self.chain, self.number
        for items, wanted, failure, done in batches:
            for item in items:
                self.number += 1
                reason = chain.add(self.number, *item)
                if reason is not None:
                    return Problem(self.number, reason)
            self.wanted.extend((base + n, offset, body) for n, offset, body in wanted)
            if failure is not None:
                return Problem(base + failure[0], failure[1])
            self.offset = done
            if self.progress is not None:
                self.progress(done, self.size)
        return None


def _raw_lines(f: BinaryIO, offset: int, end: int) -> Iterator[bytes]:
    """The lines (with their newlines) of ``f`` from ``offset`` up to byte ``end``, where
    ``f`` stands; a line running past ``end`` is cut there, as a snapshot of the ledger
    at that size has it (:func:`~intent_ls.ledger.store.open_snapshot`)."""
    if offset >= end:
        return
    for raw in f:
        offset += len(raw)
        if offset >= end:
            yield raw[: len(raw) - (offset - end)]
            return
        yield raw
