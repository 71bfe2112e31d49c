"""Mutation class of a saved change: ``AST_REFACTOR`` or ``INTENT_EVOLUTION``.

The rules, in order (deterministic; also in ``docs/ledger.md``):

1. Identical texts are an ``AST_REFACTOR`` (nothing changed).
2. Languages without a grammar: if the texts are equal once all whitespace is removed,
   ``AST_REFACTOR``; otherwise ``INTENT_EVOLUTION``.
3. With a grammar, both texts are parsed and the comparison is narrowed to the *region*:
   starting at the root, descend into a child while that one child (same index and node
   type on both sides) strictly contains every changed line of the line diff on both
   sides. In the region node, children entirely before the first change or entirely
   after the last change (counted on both sides, the smaller count wins) are unchanged
   text and dropped; what is left is the *window* on each side.
4. Each window is reduced to a canonical form: the pre-order sequence of node types with
   the text of named leaves, comments dropped (so whitespace and comments never count;
   nesting does, so re-indenting Python into another block does). Every definition (as
   the language's query file defines them) inside the window is taken out of the
   sequence, and the multiset of the definitions' own canonical forms (computed the
   same way, recursively) is compared separately, so reordering or moving definitions
   does not count, while reordering statements does. Equal → ``AST_REFACTOR``.
5. Otherwise, if the two windows' token sequences are equal up to a consistent,
   one-to-one renaming of identifier tokens (leaf kinds ending in ``identifier``), and
   every old name has disappeared from the whole new file and every new name was absent
   from the whole old file, the change is a consistent rename: ``AST_REFACTOR``.
   (Renames across files cannot be seen from one file; such a rename is classified by
   this file alone.)
6. Anything else — new or removed definitions, signature changes, changed statements,
   syntax errors introduced — is ``INTENT_EVOLUTION``.
"""

from __future__ import annotations

import bisect
import enum
import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from intent_ls.common.diff import Hunk, diff_lines, split_lines
from intent_ls.syntax.region import Children, end_row, start_row

if TYPE_CHECKING:
    import tree_sitter

    from intent_ls.syntax.document import DocumentSyntax


class MutationClass(enum.Enum):
    AST_REFACTOR = "AST_REFACTOR"
    INTENT_EVOLUTION = "INTENT_EVOLUTION"


_WS = re.compile(r"\s+")


def classify(
    old_text: str,
    new_text: str,
    language: str | None,
    *,
    old_syntax: DocumentSyntax | None = None,
    new_syntax: DocumentSyntax | None = None,
    hunks: list[Hunk] | None = None,
) -> MutationClass:
    """Pass the documents' live trees (and the line diff) when you have them: a save then
    parses and diffs nothing twice."""
    from intent_ls.syntax.languages import GRAMMARS

    if old_text == new_text:
        return MutationClass.AST_REFACTOR
    if language not in GRAMMARS:
        same = _WS.sub("", old_text) == _WS.sub("", new_text)
        return MutationClass.AST_REFACTOR if same else MutationClass.INTENT_EVOLUTION
    from intent_ls.syntax.document import DocumentSyntax

    old = _syntax_for(old_syntax, old_text, language) or DocumentSyntax.parse(old_text, language)
    new = _syntax_for(new_syntax, new_text, language) or DocumentSyntax.parse(new_text, language)
    if hunks is None:
        hunks = diff_lines(split_lines(old_text), split_lines(new_text))
    old_window, new_window = _windows(*_roots(old, new, hunks), hunks)
    if _canonical(old, old_window) == _canonical(new, new_window):
        return MutationClass.AST_REFACTOR
    if _consistent_rename(old, old_window, new, new_window):
        return MutationClass.AST_REFACTOR
    return MutationClass.INTENT_EVOLUTION


def _roots(
    old: DocumentSyntax, new: DocumentSyntax, hunks: list[Hunk]
) -> tuple[tree_sitter.Node, tree_sitter.Node]:
    """The two roots to compare: local parses around the change while edits are pending
    (the same top-level stretch on both sides), else the full trees."""
    from intent_ls.syntax.document import local_pair

    old_iv, new_iv = _intervals(hunks, True), _intervals(hunks, False)
    pair = local_pair(
        old,
        new,
        (min(lo for lo, _ in old_iv), max(hi for _, hi in old_iv)),
        (min(lo for lo, _ in new_iv), max(hi for _, hi in new_iv)),
    )
    return pair if pair is not None else (old.tree.root_node, new.tree.root_node)


def _syntax_for(doc: DocumentSyntax | None, text: str, language: str) -> DocumentSyntax | None:
    if doc is not None and doc.language == language and doc.source == text.encode("utf-8"):
        return doc
    return None


def _intervals(hunks: list[Hunk], old_side: bool) -> list[tuple[int, int]]:
    """0-based row intervals a hunk touches on one side; an empty side (a pure insertion
    or deletion) is the gap between two rows, written (row before, row after)."""
    out = []
    for h in hunks:
        start, end = (h.old_start, h.old_end) if old_side else (h.new_start, h.new_end)
        out.append((start, end - 1) if end > start else (start - 1, start))
    return out


def _sole_container(
    children: Sequence[tree_sitter.Node], intervals: list[tuple[int, int]]
) -> int | None:
    """Index of the one child containing every interval while no sibling touches them.
    Children are in document order, so only those between the first and last changed
    rows are looked at (bisect): a 10,000-line module costs a few node visits."""
    lo = min(lo for lo, _ in intervals)
    hi = max(hi for _, hi in intervals)
    found = None
    index = bisect.bisect_left(children, lo, key=end_row)
    while index < len(children) and children[index].start_point[0] <= hi:
        child = children[index]
        touches = any(child.start_point[0] <= b and child.end_point[0] >= a for a, b in intervals)
        if touches and not _is_comment(child):
            if found is not None or child.child_count == 0:
                return None
            if not all(child.start_point[0] <= a and child.end_point[0] >= b for a, b in intervals):
                return None
            found = index
        index += 1
    return found


def _windows(
    old_root: tree_sitter.Node, new_root: tree_sitter.Node, hunks: list[Hunk]
) -> tuple[list[tree_sitter.Node], list[tree_sitter.Node]]:
    old_iv, new_iv = _intervals(hunks, True), _intervals(hunks, False)
    old_c, new_c = Children(old_root), Children(new_root)
    while True:
        i, j = _sole_container(old_c, old_iv), _sole_container(new_c, new_iv)
        if i is None or i != j or old_c[i].type != new_c[j].type:
            break
        old_c, new_c = Children(old_c[i]), Children(new_c[j])
    first_old, first_new = min(lo for lo, _ in old_iv), min(lo for lo, _ in new_iv)
    last_old, last_new = max(hi for _, hi in old_iv), max(hi for _, hi in new_iv)
    lead = min(
        bisect.bisect_left(old_c, first_old, key=end_row),
        bisect.bisect_left(new_c, first_new, key=end_row),
    )
    trail = min(
        len(old_c) - bisect.bisect_right(old_c, last_old, key=start_row),
        len(new_c) - bisect.bisect_right(new_c, last_new, key=start_row),
    )
    return old_c[lead : len(old_c) - trail], new_c[lead : len(new_c) - trail]


def _definition_keys(doc: DocumentSyntax, window: list[tree_sitter.Node]) -> set[tuple[int, int]]:
    import tree_sitter

    from intent_ls.syntax import grammar

    if not window:
        return set()
    cursor = tree_sitter.QueryCursor(grammar.definitions_query(doc.language))
    cursor.set_byte_range(window[0].start_byte, window[-1].end_byte)
    keys = set()
    for _, captures in cursor.matches(window[0].parent or window[0]):
        for name, nodes in captures.items():
            if name.startswith("definition."):
                keys.add((nodes[0].start_byte, nodes[0].end_byte))
    return keys


def _is_comment(node: tree_sitter.Node) -> bool:
    return "comment" in node.type


def _tokens(doc: DocumentSyntax, node: tree_sitter.Node, out: list[str]) -> None:
    if _is_comment(node):
        return
    if node.child_count == 0:
        if node.is_named:
            out.append(node.type + "\x00" + doc.source[node.start_byte : node.end_byte].decode())
        else:
            out.append(node.type)
        return
    out.append("(" + node.type)
    for child in node.children:
        _tokens(doc, child, out)
    out.append(")")


def _canonical(doc: DocumentSyntax, window: list[tree_sitter.Node]) -> str:
    defs = _definition_keys(doc, window)

    def canon(nodes: list[tree_sitter.Node]) -> tuple[list[str], list[str]]:
        residue: list[str] = []
        nested: list[str] = []

        def walk(node: tree_sitter.Node) -> None:
            if _is_comment(node):
                return
            if (node.start_byte, node.end_byte) in defs:
                inner_res, inner_defs = canon(node.children)
                nested.append(_digest([node.type, *inner_res, "|", *sorted(inner_defs)]))
                return
            if node.child_count == 0:
                _tokens(doc, node, residue)
                return
            residue.append("(" + node.type)
            for child in node.children:
                walk(child)
            residue.append(")")

        for n in nodes:
            walk(n)
        return residue, nested

    residue, nested = canon(window)
    return _digest([*residue, "|", *sorted(nested)])


def _digest(tokens: list[str]) -> str:
    return hashlib.sha256("\x01".join(tokens).encode("utf-8", "surrogatepass")).hexdigest()


def _consistent_rename(
    old: DocumentSyntax,
    old_window: list[tree_sitter.Node],
    new: DocumentSyntax,
    new_window: list[tree_sitter.Node],
) -> bool:
    old_tokens: list[str] = []
    new_tokens: list[str] = []
    for n in old_window:
        _tokens(old, n, old_tokens)
    for n in new_window:
        _tokens(new, n, new_tokens)
    if len(old_tokens) != len(new_tokens):
        return False
    forward: dict[str, str] = {}
    backward: dict[str, str] = {}
    for a, b in zip(old_tokens, new_tokens, strict=True):
        if a == b:
            continue
        a_type, _, a_name = a.partition("\x00")
        b_type, _, b_name = b.partition("\x00")
        if a_type != b_type or not a_type.endswith("identifier"):
            return False
        if forward.setdefault(a_name, b_name) != b_name:
            return False
        if backward.setdefault(b_name, a_name) != a_name:
            return False
    if not forward:
        return False
    old_text, new_text = old.text, new.text
    for a, b in forward.items():
        if a == b:
            continue
        if _word(a).search(new_text) or _word(b).search(old_text):
            return False
    return True


def _word(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])")
