"""The windows of lines the moved-code search hashes: a saved range found again in a
changed file, or text an agent moved from another file, is matched by the SHA-256 of a
block of whole lines."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

#: Moved-code search hashes every window of an uncovered block up to this many lines
#: (plus the whole block): cost grows with the square of the window length.
MAX_MOVED_WINDOW = 64
#: A window from another file counts only with this much substance: a blank line or a
#: lone ``}`` matches everywhere and proves nothing about where code came from.
MIN_MOVED_CHARS = 16


def window_hash(encoded: list[bytes], start: int, length: int) -> str | None:
    if start < 1 or start + length - 1 > len(encoded):
        return None
    return (
        "sha256:" + hashlib.sha256(b"\n".join(encoded[start - 1 : start - 1 + length])).hexdigest()
    )


def starts_touching(lines: list[int], length: int, total: int) -> list[int]:
    """Window starts (1-based) whose ``length`` lines include at least one of ``lines``."""
    starts: set[int] = set()
    for first, last in runs(lines):
        starts.update(range(max(1, first - length + 1), min(last, total - length + 1) + 1))
    return sorted(starts)


def runs(lines: list[int]) -> Iterator[tuple[int, int]]:
    """Maximal blocks of consecutive line numbers in sorted ``lines``."""
    if not lines:
        return
    first = last = lines[0]
    for line in lines[1:]:
        if line != last + 1:
            yield first, last
            first = line
        last = line
    yield first, last


def substantial(lines: list[str]) -> bool:
    return sum(substance(line) for line in lines) >= MIN_MOVED_CHARS


def substance(line: str) -> int:
    return len("".join(line.split()))


def windows(encoded: list[bytes], pending: list[int]) -> Iterator[tuple[int, int, bytes]]:
    """(first line, last line, SHA-256) of every window of up to
    :data:`MAX_MOVED_WINDOW` lines inside each run of ``pending`` lines, and of each run
    longer than that as a whole."""
    for first, last in runs(pending):
        if last - first + 1 > MAX_MOVED_WINDOW:  # the whole block, beyond the limit
            yield first, last, hashlib.sha256(b"\n".join(encoded[first - 1 : last])).digest()
        for start in range(first, last + 1):
            h = hashlib.sha256()
            for end in range(start, min(last, start + MAX_MOVED_WINDOW - 1) + 1):
                h.update(b"\n" + encoded[end - 1] if end > start else encoded[end - 1])
                yield start, end, h.digest()
