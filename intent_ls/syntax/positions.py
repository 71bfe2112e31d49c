"""LSP positions → tree-sitter byte offsets and points (pure Python).

LSP counts ``character`` in the negotiated encoding (UTF-16 by default, UTF-8 for Neovim
0.11, UTF-32 possible); tree-sitter wants UTF-8 byte offsets and (row, byte column)
points. Lines are split on ``\\n`` only, as tree-sitter does.
"""

from __future__ import annotations

from typing import Literal

Encoding = Literal["utf-8", "utf-16", "utf-32"]


def line_start(source: bytes, line: int) -> int:
    """Byte offset where 0-based ``line`` starts; past the end clamps to ``len(source)``."""
    pos = 0
    for _ in range(line):
        nl = source.find(b"\n", pos)
        if nl < 0:
            return len(source)
        pos = nl + 1
    return pos


def column_to_bytes(line_text: str, character: int, encoding: Encoding) -> int:
    """UTF-8 byte length of the first ``character`` units of ``line_text``; clamps like
    LSP requires when a client sends a character past the line's end."""
    if encoding == "utf-8":
        return min(character, len(line_text.encode("utf-8")))
    if encoding == "utf-32":
        return len(line_text[:character].encode("utf-8"))
    units = 0
    for index, ch in enumerate(line_text):
        if units >= character:
            return len(line_text[:index].encode("utf-8"))
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text.encode("utf-8"))


def position_to_byte(
    source: bytes, line: int, character: int, encoding: Encoding = "utf-16"
) -> tuple[int, tuple[int, int]]:
    """(byte offset, (row, byte column)) of an LSP position in ``source``."""
    start = line_start(source, line)
    if start == len(source) and line > source.count(b"\n", 0, start):
        # beyond the last line: clamp to the end of the document
        row = source.count(b"\n")
        return len(source), (row, len(source) - (source.rfind(b"\n") + 1))
    end = source.find(b"\n", start)
    end = len(source) if end < 0 else end
    text = source[start:end].decode("utf-8", errors="replace")
    if encoding == "utf-8":
        col = min(character, end - start)
    else:
        col = column_to_bytes(text, character, encoding)
    return start + col, (line, col)


def point_after(start: tuple[int, int], inserted: bytes) -> tuple[int, int]:
    """The point reached by inserting ``inserted`` at ``start``."""
    rows = inserted.count(b"\n")
    if rows == 0:
        return start[0], start[1] + len(inserted)
    return start[0] + rows, len(inserted) - (inserted.rfind(b"\n") + 1)
