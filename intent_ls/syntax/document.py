"""A tree-sitter tree kept in step with an open document.

The language server forwards every ``didChange`` here; each change becomes a
``tree.edit`` at once, and the tree is reparsed (incrementally, reusing the old tree)
only when something needs all of it. Questions about a few lines — the definitions a
save touched, the one under the cursor — are answered from a parse of just the
top-level nodes around them while edits are pending (:mod:`intent_ls.syntax.region`),
so a save never waits for a whole-file parse.
"""

from __future__ import annotations

from collections.abc import Iterable

import tree_sitter

from intent_ls.common.diff import LineSpan, common_prefix, common_suffix
from intent_ls.common.hashing import content_hash
from intent_ls.syntax import grammar, region
from intent_ls.syntax.languages import GRAMMARS
from intent_ls.syntax.model import AstNode
from intent_ls.syntax.positions import Encoding, point_after, position_to_byte

Point = tuple[int, int]
_NodeKey = tuple[int, int, str]
#: A definition the query found: (the pattern that matched, kind, name, node).
_Match = tuple[int, str, str, tree_sitter.Node]


def _key(node: tree_sitter.Node) -> _NodeKey:
    return node.start_byte, node.end_byte, node.type


def _qualified(name: str, node: tree_sitter.Node, found: dict[_NodeKey, _Match]) -> str:
    """``name`` after the names of the definitions around ``node`` (``Class.method``)."""
    qualified = [name]
    parent = node.parent
    while parent is not None:
        outer = found.get(_key(parent))
        if outer is not None:
            qualified.append(outer[2])
        parent = parent.parent
    return ".".join(reversed(qualified))


def _last_line(node: tree_sitter.Node) -> int:
    """1-based last line; a node ending at column 0 ends on the line before."""
    row, col = node.end_point
    if col == 0 and row > node.start_point[0]:
        return row
    return row + 1


class DocumentSyntax:
    """Source bytes and their tree for one document in one supported language."""

    def __init__(
        self,
        language: str,
        source: bytes,
        tree: tree_sitter.Tree,
        dirty: tuple[int, int] | None = None,
    ) -> None:
        self.language = language
        self.source = source
        self._tree = tree
        #: Bytes of ``source`` edited since ``_tree`` was parsed (None: the tree is
        #: current). ``_tree`` has had every edit applied, so nodes outside keep their
        #: current positions.
        self._dirty = dirty
        self._parser = grammar.parser(language)
        self._local: tuple[region.Span, tree_sitter.Node] | None = None
        #: Whole-document parses after the first (tests and benchmarks watch it).
        self.reparses = 0

    @classmethod
    def parse(cls, text: str | bytes, language: str) -> DocumentSyntax:
        source = text.encode("utf-8") if isinstance(text, str) else text
        return cls(language, source, grammar.parser(language).parse(source))

    @property
    def text(self) -> str:
        return self.source.decode("utf-8", errors="replace")

    @property
    def tree(self) -> tree_sitter.Tree:
        """The tree of ``source``, brought up to date first if edits are pending."""
        self.reparse()
        return self._tree

    def reparse(self) -> None:
        """Reparses (incrementally) if edits are pending; done at a pause in editing so
        that later questions are answered from the full tree, not local parses."""
        if self._dirty is not None:
            self._tree = self._parser.parse(self.source, self._tree)
            self._dirty = None
            self._local = None
            self.reparses += 1

    def copy(self) -> DocumentSyntax:
        """An independent snapshot (e.g. the baseline at the last recorded save)."""
        return DocumentSyntax(self.language, self.source, self._tree.copy(), self._dirty)

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
        """tree-sitter's edit protocol: UTF-8 byte offsets and (row, byte column) points.
        The tree is edited now and reparsed when it is next needed."""
        self._tree.edit(
            start_byte=start_byte,
            old_end_byte=old_end_byte,
            new_end_byte=new_end_byte,
            start_point=start_point,
            old_end_point=old_end_point,
            new_end_point=new_end_point,
        )
        self.source = new_source
        self._local = None
        self._dirty = _widen(self._dirty, start_byte, old_end_byte, new_end_byte)

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
        """Several LSP range changes in order (a burst of keystrokes): each becomes a
        ``tree.edit`` on the evolving source; the burst costs at most one reparse, later."""
        for start, end, text in changes:
            self.apply_change(start, end, text, encoding)

    def replace_all(self, text: str) -> None:
        """A full-document change (no range): edited as the one stretch that differs, so
        the unchanged head and tail of the tree are reused like after a range change."""
        new = text.encode("utf-8")
        old = self.source
        head = common_prefix(old, new)
        tail = common_suffix(old, new, head)
        old_end, new_end = len(old) - tail, len(new) - tail
        if head == old_end == new_end:
            return
        start_point = _point_at(old, head)
        self.apply_edit(
            head,
            old_end,
            new_end,
            start_point,
            _point_at(old, old_end),
            point_after(start_point, new[head:new_end]),
            new,
        )

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
        found = self._matches(windows)
        out = []
        for _, kind, name, node in found.values():
            start, end = node.start_point[0] + 1, _last_line(node)
            if not any(w is None or (start <= w[1] and end >= w[0]) for w in windows):
                continue
            digest = content_hash(self._node_text(node).splitlines())
            out.append(AstNode(kind, _qualified(name, node, found), start, end, digest))
        out.sort(key=lambda n: (n.start_line, -n.end_line, n.name))
        return out

    def _matches(self, windows: list[tuple[int, int] | None]) -> dict[_NodeKey, _Match]:
        """The definitions the query finds in ``windows`` (None: the whole document), by
        node; a node several patterns match is read as the first one does."""
        query = grammar.definitions_query(self.language)
        found: dict[_NodeKey, _Match] = {}
        root = self._root_for(windows)
        for window in windows:
            cursor = tree_sitter.QueryCursor(query)
            if window is not None:
                cursor.set_point_range((max(window[0] - 1, 0), 0), (window[1], 0))
            for pattern, captures in cursor.matches(root):
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
        return found

    def _root_for(self, windows: list[tuple[int, int] | None]) -> tree_sitter.Node:
        """The root to query ``windows`` (1-based inclusive lines) on: a local parse
        around them while edits are pending, if one can stand in for the full parse."""
        if self._dirty is None or not windows or None in windows:
            return self.tree.root_node
        rows = (
            min(w[0] for w in windows if w is not None) - 1,
            max(w[1] for w in windows if w is not None),
        )
        root = self.local_root(rows)
        return root if root is not None else self.tree.root_node

    def local_root(self, rows: tuple[int, int]) -> tree_sitter.Node | None:
        """The root of a parse of only the top-level nodes around ``rows`` (0-based,
        inclusive) and the pending edits, or None when the full tree must answer."""
        if self._dirty is None:
            return None
        span = self.stretch(rows)
        return self.parse_local(span) if span is not None else None

    def stretch(self, rows: tuple[int, int]) -> region.Span | None:
        """See :func:`intent_ls.syntax.region.stretch`."""
        return region.stretch(self._tree.root_node, self.source, self._dirty, rows)

    def parse_local(self, span: region.Span) -> tree_sitter.Node | None:
        """A parse of ``span`` alone (kept until the next edit), None if it has errors."""
        if self._local is not None and self._local[0] == span:
            return self._local[1]
        root = region.parse_span(grammar.language(self.language), self.source, span)
        if root is not None:
            self._local = (span, root)
        return root

    def boundary(self, byte: int) -> Point | None:
        """The point of ``byte`` when a top-level node of the current text starts there
        (outside the pending edits), else None."""
        if self._dirty is not None and self._dirty[0] <= byte < self._dirty[1]:
            return None
        if self._tree.root_node.has_error:
            return None
        return region.starts_node(self._tree.root_node, byte, self.source)

    @property
    def dirty(self) -> tuple[int, int] | None:
        return self._dirty

    def _node_text(self, node: tree_sitter.Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def local_pair(
    old: DocumentSyntax, new: DocumentSyntax, old_rows: tuple[int, int], new_rows: tuple[int, int]
) -> tuple[tree_sitter.Node, tree_sitter.Node] | None:
    """Roots of local parses of the same top-level stretch of two versions of a document
    whose changed lines are ``old_rows`` and ``new_rows`` (0-based, inclusive; the lines
    before them are equal), so that the unchanged nodes around the change line up one to
    one. None when neither side has pending edits (their full trees are current) or no
    common stretch stands on its own."""
    if old.dirty is None and new.dirty is None:
        return None
    a, b = old.stretch(old_rows), new.stretch(new_rows)
    if a is None or b is None:
        return None
    start = min(a[0], b[0])
    shift = len(new.source) - len(old.source)
    new_end = max(b[1], a[1] + shift)
    old_end = new_end - shift
    old_start, new_start = old.boundary(start), new.boundary(start)
    old_stop, new_stop = old.boundary(old_end), new.boundary(new_end)
    if old_start is None or new_start is None or old_stop is None or new_stop is None:
        return None
    old_root = old.parse_local((start, old_end, old_start, old_stop))
    new_root = new.parse_local((start, new_end, new_start, new_stop))
    if old_root is None or new_root is None:
        return None
    return old_root, new_root


def _widen(
    dirty: tuple[int, int] | None, start: int, old_end: int, new_end: int
) -> tuple[int, int]:
    """The edited bytes after one more edit (``start``..``old_end`` became
    ``start``..``new_end``), given those edited before it."""
    if dirty is None:
        return start, new_end
    lo, hi = dirty
    shift = new_end - old_end
    lo = lo if lo <= start else lo + shift if lo >= old_end else start
    hi = hi if hi <= start else hi + shift if hi >= old_end else new_end
    return min(lo, start), max(hi, new_end)


def _point_at(source: bytes, byte: int) -> Point:
    return source.count(b"\n", 0, byte), byte - (source.rfind(b"\n", 0, byte) + 1)


def definitions(text: str, language: str | None) -> list[AstNode]:
    """Every named definition in ``text`` (for code lens); [] for unsupported languages."""
    if language not in GRAMMARS:
        return []
    return DocumentSyntax.parse(text, language).definitions()
