"""The ledger read backwards from its end: the newest records that mention a string.

While the trace index is being built (a fresh clone of a big ledger: seconds) the
questions that matter most are about recent work — an intent's last mutations for the
handshake, the newest records of an open file — and their answers sit at the end of the
ledger. Reading it backwards in blocks and parsing only the lines that contain the wanted
text answers them exactly in milliseconds, without the index.

A line is a candidate when it contains the wanted bytes or a backslash: a line without a
backslash has no JSON escape, so every string in it appears verbatim (UTF-8) and a value
equal to the wanted text must show up as those bytes. Candidates are then parsed and
judged by the caller, so the filter never decides an answer, it only skips lines.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from intent_ls.common.safe_io import open_sidecar_reader
from intent_ls.ledger.index import json_rows

_BLOCK = 1024 * 1024


class TailScan:
    """Candidate lines of one backwards read, and how far it got: ``complete`` once the
    first line of the ledger was reached, ``scanned`` bytes from the end otherwise."""

    __slots__ = ("complete", "ledger", "max_bytes", "needle", "scanned")

    def __init__(self, ledger: Path, needle: bytes, max_bytes: int | None = None) -> None:
        self.ledger = ledger
        self.needle = needle
        self.max_bytes = max_bytes
        self.scanned = 0
        self.complete = False

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(offset, line) of the complete candidate lines, newest first. A torn last
        line (an append in progress) is not a record yet and is skipped, as the index
        does. Stops after ``max_bytes`` (``complete`` then stays False)."""
        assert b"\n" not in self.needle
        try:
            f = open_sidecar_reader(self.ledger)
        except FileNotFoundError:
            self.complete = True
            return
        with f:
            pos = end = _complete_end(f)
            carry = b""  # whole lines whose first line began in an earlier block
            while pos > 0:
                if self.max_bytes is not None and self.scanned >= self.max_bytes:
                    return
                step = min(_BLOCK, pos)
                pos -= step
                f.seek(pos)
                data = f.read(step) + carry
                cut = data.find(b"\n") + 1 if pos > 0 else 0
                if pos > 0 and cut == 0:  # one line longer than the block so far
                    carry = data
                    continue
                # data[:cut] ends a line that began in an earlier block.
                carry = data[:cut]
                yield from self._candidates(pos + cut, data[cut:])
                self.scanned = end - pos - len(carry)
        self.scanned = end
        self.complete = True

    def _candidates(self, base: int, body: bytes) -> Iterator[tuple[int, bytes]]:
        """Candidate lines of ``body`` (whole lines, each ending with a newline, the
        first at offset ``base``), last first."""
        # Every line ends with a newline: an empty needle makes every line a candidate.
        needle = self.needle or b"\n"
        hits = sorted({*_positions(body, needle), *_positions(body, b"\\")}, reverse=True)
        last = -1
        for at in hits:
            start = body.rfind(b"\n", 0, at) + 1
            if start == last:
                continue
            last = start
            yield base + start, body[start : body.index(b"\n", at)]


def _complete_end(f: BinaryIO) -> int:
    """The offset just after the last newline of the open ledger (0 if none)."""
    pos = f.seek(0, os.SEEK_END)
    while pos > 0:
        step = min(_BLOCK, pos)
        pos -= step
        f.seek(pos)
        at = f.read(step).rfind(b"\n")
        if at >= 0:
            return pos + at + 1
    return 0


def _positions(body: bytes, needle: bytes) -> Iterator[int]:
    at = body.find(needle)
    while at >= 0:
        yield at
        at = body.find(needle, at + len(needle))


def records_touching(
    ledger: Path, rel: str, limit: int, max_bytes: int | None
) -> tuple[list[tuple[int, dict[str, Any]]], bool]:
    """(offset, record) of the newest ``limit`` records that touch ``rel`` — the records
    :meth:`TraceIndex.records_for_path` names, judged by the same rows — newest first,
    and whether that list is certain (``limit`` found, or the whole ledger read)."""
    scan = TailScan(ledger, rel.encode("utf-8", "surrogatepass"), max_bytes)
    out: list[tuple[int, dict[str, Any]]] = []
    for offset, line in scan.lines():
        if not any(touch[1] == rel for touch in json_rows(0, offset, line)[1]):
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        out.append((offset, record))
        if len(out) >= limit:
            return out, True
    return out, scan.complete
