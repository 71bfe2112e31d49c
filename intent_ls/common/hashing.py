"""Content hashes for Agent Trace ranges, AST nodes and whole files.

One rule everywhere, so a hash computed by the ledger at save time matches one computed
by hover later, in another file, on another OS: the hashed bytes are the UTF-8 encoding
of the lines joined with ``"\\n"`` — CRLF and lone CR normalized to LF, no trailing
newline. Because the line numbers are not part of the hash, attribution survives moves.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache

PREFIX = "sha256:"
#: The 16 hex digits after the prefix that make a digest's key (:func:`hash_key`), as one
#: slice object: the index reads millions of keys, and building it each time costs more
#: than the rest of the slicing.
KEY_DIGITS = slice(len(PREFIX), len(PREFIX) + 16)


def _digest(data: bytes) -> str:
    return PREFIX + hashlib.sha256(data).hexdigest()


def normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def content_hash(lines: Iterable[str]) -> str:
    """Hash of a block of lines (as given by ``str.splitlines()``, without terminators)."""
    return _digest("\n".join(normalize_newlines(line) for line in lines).encode("utf-8"))


@lru_cache(maxsize=8)
def text_hash(text: str) -> str:
    """Hash of a text by the same rule: a final newline does not change the hash.

    Remembered for the last few texts: one save hashes the same whole document at
    several steps (the disk stamp, the record's before/after, the open verdicts)."""
    text = normalize_newlines(text)
    if text.endswith("\n"):
        text = text[:-1]
    return _digest(text.encode("utf-8"))


def line_range_hash(lines: list[str], start: int, end: int) -> str:
    """Hash of the 1-based inclusive line span ``start..end`` of ``lines``."""
    return content_hash(lines[start - 1 : end])


def bytes_hash(data: bytes) -> str:
    """Hash of raw bytes, used for the ledger's chain (a line's bytes without its newline)."""
    return _digest(data)


def hash_key(digest: str) -> int:
    """A signed 64-bit key from a ``sha256:`` digest, compact enough to index a million
    records in SQLite; callers treat equal keys as candidates, not as proof."""
    value = int(digest[KEY_DIGITS], 16)
    return value - (1 << 64) if value >= 1 << 63 else value
