"""Parsing only the part of a document an edit touched.

tree-sitter cannot reuse a single node when a file is one long run of top-level
statements (a 10,000-line Python module of assignments reparses in full after a
one-character edit, ~40 ms holding the GIL), yet a save only needs the definitions on
the lines it changed. So an edited tree is not reparsed until something needs all of
it: questions about a few lines are answered from a parse of just the top-level nodes
around them (``Parser.included_ranges``, which keeps document coordinates).

That local parse is the full parse's subtree when the stretch starts and ends on
top-level boundaries that the edits cannot have moved: the stretch covers every byte
edited since the last full parse, starts at a top-level node that begins before the
first edit (the text before it is unchanged, so the full parse still starts a node
there), ends where an unchanged top-level node begins after the last edit, and keeps
:data:`MARGIN` unchanged nodes on each side so that an edit that joins neighbouring
statements still ends inside the stretch. Anything doubtful — a tree that had errors,
a local parse with errors, a stretch larger than :data:`MAX_SHARE` of the file — is
answered by the full parse instead, so the shortcut can cost a parse but never a
wrong answer.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import overload

import tree_sitter

#: Unchanged top-level nodes kept on each side of the edited stretch.
MARGIN = 2
#: Above this share of the document a local parse is not worth it: reparse it all.
MAX_SHARE = 0.25

Point = tuple[int, int]
#: (start byte, end byte, start point, end point) of a stretch of the document.
Span = tuple[int, int, Point, Point]


class Children(Sequence[tree_sitter.Node]):
    """A node's children, fetched one at a time: bisecting a 10,000-statement module
    visits a few of them instead of building a list of all."""

    def __init__(self, node: tree_sitter.Node) -> None:
        self._node = node

    def __len__(self) -> int:
        return self._node.child_count

    @overload
    def __getitem__(self, index: int) -> tree_sitter.Node: ...
    @overload
    def __getitem__(self, index: slice) -> list[tree_sitter.Node]: ...
    def __getitem__(self, index: int | slice) -> tree_sitter.Node | list[tree_sitter.Node]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        child = self._node.child(index)
        if child is None:
            raise IndexError(index)
        return child


def end_point(source: bytes) -> Point:
    last = source.rfind(b"\n")
    return source.count(b"\n"), len(source) - (last + 1)


def _start_byte(node: tree_sitter.Node) -> int:
    return node.start_byte


def _end_byte(node: tree_sitter.Node) -> int:
    return node.end_byte


def start_row(node: tree_sitter.Node) -> int:
    return node.start_point[0]


def end_row(node: tree_sitter.Node) -> int:
    return node.end_point[0]


def stretch(
    root: tree_sitter.Node,
    source: bytes,
    dirty: tuple[int, int] | None,
    rows: tuple[int, int],
) -> Span | None:
    """The stretch of top-level nodes to parse so that ``rows`` (0-based, inclusive) and
    every edited byte (``dirty``, in the current source) lie well inside it.

    ``root`` is the root of the last full parse with the edits since applied
    (``Tree.edit``), so nodes outside ``dirty`` have their current positions.
    """
    if root.has_error:
        return None
    children = Children(root)
    if not len(children):
        return None
    first_row, last_row = rows
    first = bisect.bisect_left(children, first_row, key=end_row)
    after = bisect.bisect_right(children, last_row, key=start_row)
    if dirty is not None:
        first = min(first, bisect.bisect_left(children, dirty[0], key=_end_byte))
        after = max(after, bisect.bisect_left(children, dirty[1], key=_start_byte))
    # A node the edits cut into keeps a position but is no boundary: a partly deleted
    # one starts where the edit ended, whatever stood before it. (Nodes before the first
    # edit are untouched.)
    while after < len(children) and children[after].has_changes:
        after += 1
    first -= MARGIN
    after += MARGIN
    if first <= 0:
        start, start_point = 0, (0, 0)
    else:
        node = children[first]
        start, start_point = node.start_byte, node.start_point
    if after >= len(children):
        end, stop = len(source), end_point(source)
    else:
        node = children[after]
        end, stop = node.start_byte, node.start_point
    if end - start > MAX_SHARE * len(source):
        return None
    return start, end, start_point, stop


def starts_node(root: tree_sitter.Node, byte: int, source: bytes) -> Point | None:
    """The point of ``byte`` if a top-level node untouched by the edits starts exactly
    there (or it is an end of the document), else None: only such bytes are boundaries
    a local parse may use."""
    if byte == 0:
        return (0, 0)
    if byte == len(source):
        return end_point(source)
    children = Children(root)
    index = bisect.bisect_left(children, byte, key=_start_byte)
    while index < len(children) and children[index].start_byte == byte:
        if not children[index].has_changes:
            return children[index].start_point
        index += 1
    return None


def parse_span(
    language: tree_sitter.Language, source: bytes, span: Span
) -> tree_sitter.Node | None:
    """The root of a parse of ``span`` alone, in document coordinates; None when that
    parse has errors (the stretch may not stand on its own)."""
    start, end, start_point, stop = span
    parser = tree_sitter.Parser(language)
    parser.included_ranges = [tree_sitter.Range(start_point, stop, start, end)]
    root = parser.parse(source).root_node
    return None if root.has_error else root
