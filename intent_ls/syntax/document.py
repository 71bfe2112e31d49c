"""A tree-sitter tree kept in step with an open document.

The language server forwards every ``didChange`` here; each change becomes a
``tree.edit`` plus a reparse that reuses the old tree, so the tree is current when the
document is saved and a save never reparses from scratch.
"""

from __future__ import annotations

from collections.abc import Iterable

import tree_sitter

from intent_ls.diff import LineSpan
from intent_ls.hashing import content_hash
from intent_ls.syntax import grammar
from intent_ls.syntax.model import AstNode
from intent_ls.syntax.positions import Encoding, point_after, position_to_byte

Point = tuple[int, int]
_NodeKey = tuple[int, int, str]


def _key(node: tree_sitter.Node) -> _NodeKey:
    return node.start_byte, node.end_byte, node.type


def _last_line(node: tree_sitter.Node) -> int:
    """1-based last line; a node ending at column 0 ends on the line before."""
    row, col = node.end_point
    if col == 0 and row > node.start_point[0]:
        return row
    return row + 1


class DocumentSyntax:
    """Source bytes and their tree for one document in one supported language."""

    def __init__(self, language: str, source: bytes, tree: tree_sitter.Tree) -> None:
        self.language = language
        self.source = source
        self.tree = tree
        self._parser = grammar.parser(language)

    @classmethod
    def parse(cls, text: str | bytes, language: str) -> DocumentSyntax:
        source = text.encode("utf-8") if isinstance(text, str) else text
        return cls(language, source, grammar.parser(language).parse(source))

    @property
    def text(self) -> str:
        return self.source.decode("utf-8", errors="replace")

    def copy(self) -> DocumentSyntax:
        """An independent snapshot (e.g. the baseline at the last recorded save)."""
        return DocumentSyntax(self.language, self.source, self.tree.copy())

    def apply_edit(
        self,
        start_byte: int,
        old_end_byte: int,
        new_end_byte: int,
        start_point: Point,
        old_end_point: Point,
        new_end_point: Point,
        new_source: bytes,
    ) -> None:
        """tree-sitter's edit protocol: UTF-8 byte offsets and (row, byte column) points."""
        self.tree.edit(
            start_byte=start_byte,
            old_end_byte=old_end_byte,
            new_end_byte=new_end_byte,
            start_point=start_point,
            old_end_point=old_end_point,
            new_end_point=new_end_point,
        )
        self.source = new_source
        self.tree = self._parser.parse(new_source, self.tree)

    def apply_change(
        self, start: Point, end: Point, text: str, encoding: Encoding = "utf-16"
    ) -> None:
        """One LSP ``TextDocumentContentChangeEvent`` with a range: positions as (line,
        character) in the negotiated encoding, converted here."""
        start_byte, start_point = position_to_byte(self.source, start[0], start[1], encoding)
        old_end_byte, old_end_point = position_to_byte(self.source, end[0], end[1], encoding)
        inserted = text.encode("utf-8")
        new_source = self.source[:start_byte] + inserted + self.source[old_end_byte:]
        self.apply_edit(
            start_byte,
            old_end_byte,
            start_byte + len(inserted),
            start_point,
            old_end_point,
            point_after(start_point, inserted),
            new_source,
        )

    def apply_changes(
        self, changes: Iterable[tuple[Point, Point, str]], encoding: Encoding = "utf-16"
    ) -> None:
        """Several LSP range changes in order (a burst of keystrokes), with one reparse:
        each becomes a ``tree.edit`` on the evolving source, then the tree is reparsed
        once, which tree-sitter supports and which costs one parse instead of many."""
        source, edited = self.source, False
        for start, end, text in changes:
            start_byte, start_point = position_to_byte(source, start[0], start[1], encoding)
            old_end_byte, old_end_point = position_to_byte(source, end[0], end[1], encoding)
            inserted = text.encode("utf-8")
            source = source[:start_byte] + inserted + source[old_end_byte:]
            self.tree.edit(
                start_byte=start_byte,
                old_end_byte=old_end_byte,
                new_end_byte=start_byte + len(inserted),
                start_point=start_point,
                old_end_point=old_end_point,
                new_end_point=point_after(start_point, inserted),
            )
            edited = True
        if edited:
            self.source = source
            self.tree = self._parser.parse(source, self.tree)

    def replace_all(self, text: str) -> None:
        """A full-document change (no range): nothing of the old tree can be reused."""
        self.source = text.encode("utf-8")
        self.tree = self._parser.parse(self.source)

    def definitions(self) -> list[AstNode]:
        return self._collect([None])

    def definitions_for_spans(self, spans: Iterable[LineSpan]) -> list[AstNode]:
        """Definitions overlapping any span (1-based inclusive lines), enclosing ones
        included, in document order."""
        return self._collect([(span.start, span.end) for span in spans])

    def definitions_at(self, line: int) -> list[AstNode]:
        """Definitions enclosing 1-based ``line``, outermost first (hover uses the last)."""
        return self._collect([(line, line)])

    def _collect(self, windows: list[tuple[int, int] | None]) -> list[AstNode]:
        query = grammar.definitions_query(self.language)
        found: dict[_NodeKey, tuple[int, str, str, tree_sitter.Node]] = {}
        for window in windows:
            cursor = tree_sitter.QueryCursor(query)
            if window is not None:
                cursor.set_point_range((max(window[0] - 1, 0), 0), (window[1], 0))
            for pattern, captures in cursor.matches(self.tree.root_node):
                kind, node = next(
                    (name.removeprefix("definition."), nodes[0])
                    for name, nodes in captures.items()
                    if name.startswith("definition.")
                )
                name = self._node_text(captures["name"][0]) if "name" in captures else ""
                if "receiver" in captures:
                    name = f"{self._node_text(captures['receiver'][0])}.{name}"
                key = _key(node)
                if key not in found or found[key][0] > pattern:
                    found[key] = (pattern, kind, name, node)
        out = []
        for _, kind, name, node in found.values():
            start, end = node.start_point[0] + 1, _last_line(node)
            if not any(w is None or (start <= w[1] and end >= w[0]) for w in windows):
                continue
            qualified = [name]
            parent = node.parent
            while parent is not None:
                outer = found.get(_key(parent))
                if outer is not None:
                    qualified.append(outer[2])
                parent = parent.parent
            text = self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")
            digest = content_hash(text.splitlines())
            out.append(AstNode(kind, ".".join(reversed(qualified)), start, end, digest))
        out.sort(key=lambda n: (n.start_line, -n.end_line, n.name))
        return out

    def _node_text(self, node: tree_sitter.Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")
