"""LSP positions ↔ code points at C speed, so a keystroke on a long line stays cheap.

pygls' :class:`PositionCodec` converts a ``character`` by walking the line one code point
at a time in Python: on a 1,000,000-character line (minified bundles, generated data)
that is hundreds of milliseconds per position, and a change has two. Here the line is
encoded once by the codec in C and measured or cut in bytes instead. Clamping follows
the LSP specification: a character past the end of a line means the end of the line
(its line break excluded), a line past the end of the document means its end.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

_BREAKS = "\r\n"


def _body(line: str) -> str:
    return line.rstrip(_BREAKS) if line.endswith(("\n", "\r")) else line


class FastCodec(PositionCodec):
    """pygls' codec interface with C-speed conversions (UTF-8, UTF-16 or UTF-32)."""

    def __init__(self, encoding: types.PositionEncodingKind | str | None = None) -> None:
        super().__init__(encoding or types.PositionEncodingKind.Utf16)
        kind = str(self.encoding)
        self.kind = "utf-8" if kind == "utf-8" else "utf-32" if kind == "utf-32" else "utf-16"

    def client_num_units(self, string: str) -> int:
        if self.kind == "utf-32" or (self.kind == "utf-16" and string.isascii()):
            return len(string)
        if self.kind == "utf-8":
            return len(string.encode("utf-8", "surrogatepass"))
        return len(string.encode("utf-16-le", "surrogatepass")) // 2

    def column(self, line: str, units: int) -> int:
        """Code-point column of ``units`` client units into ``line``: the first column at
        or past them (a character they split counts as passed, as in pygls), clamped to
        the end of the line before its line break."""
        body = _body(line)
        units = max(units, 0)
        if self.kind == "utf-32" or (self.kind == "utf-16" and body.isascii()):
            return min(units, len(body))
        if self.kind == "utf-8":
            data = body.encode("utf-8", "surrogatepass")
            if units >= len(data):
                return len(body)
            column = len(data[:units].decode("utf-8", "ignore"))
            return (
                column
                if len(body[:column].encode("utf-8", "surrogatepass")) == units
                else column + 1
            )
        data = body.encode("utf-16-le", "surrogatepass")
        if 2 * units >= len(data):
            return len(body)
        return len(data[: 2 * units].decode("utf-16-le", "surrogatepass"))

    def position_from_client_units(
        self, lines: Sequence[str], position: types.Position
    ) -> ServerTextPosition:
        if not lines:
            return ServerTextPosition(0, 0)
        if position.line >= len(lines):
            return ServerTextPosition(len(lines) - 1, len(_body(lines[-1])))
        return ServerTextPosition(
            position.line, self.column(lines[position.line], position.character)
        )

    def position_to_client_units(
        self, lines: Sequence[str], position: ServerTextPosition | types.Position
    ) -> types.Position:
        if position.line >= len(lines):
            return types.Position(line=len(lines), character=0)
        line = lines[position.line]
        return types.Position(
            line=position.line, character=self.client_num_units(line[: position.character])
        )
