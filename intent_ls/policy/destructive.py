"""Destructive edits: what a pending change destroys, said exactly enough to approve it.

A human must approve destruction, so each finding names what goes (``deletes function
`verify_token` (lines 40–72)``), carries the key an approval is recorded under (the
baseline content hash of what goes, by the ledger's hashing rule) and the edits that
would undo it. Everything here is pure: texts in, findings out.

Conventions, chosen to match the ledger so nothing is converted twice:

- ``Finding.anchor`` and ``Finding.baseline`` are :class:`~intent_ls.common.diff.LineSpan` —
  1-based, inclusive — in the *new* text and in the *baseline* respectively. A pure
  deletion leaves no line of its own, so its anchor is the line now standing where the
  text used to be (clamped to the last line).
- :class:`TextEdit` positions are 0-based (line, column in code points) in the new text,
  i.e. an LSP ``TextEdit`` once the front door converts columns to UTF-16/UTF-8.

When is a definition *deleted* rather than edited or moved? A baseline definition
counts as deleted when all three hold:

1. its first line was changed (lies in a diff hunk) — otherwise its header survives
   verbatim and so does the definition;
2. no changed definition of the new text takes its place: none has the same qualified
   name and kind (an edit), the same content hash (a move), or the same *shape* — its
   lines stripped of indentation with its own name blanked out (a rename, or a move into
   another class);
3. fewer than half of its baseline lines survive unchanged — otherwise its body is still
   there and its header was merely retyped.

Only the outermost deleted definition is reported (deleting a class reports the class,
not each of its methods). Lines inside deleted definitions are not counted again towards
the mass-deletion threshold, so deleting one long function is one finding, not two.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from intent_ls.common.diff import Hunk, LineSpan, changed_spans, diff_lines, split_lines
from intent_ls.common.hashing import content_hash, text_hash
from intent_ls.policy.change import DEFAULT_MAX_DELETED_LINES
from intent_ls.scope.protected import ProtectedPaths
from intent_ls.syntax.languages import GRAMMARS, language_for
from intent_ls.syntax.model import AstNode

if TYPE_CHECKING:
    from intent_ls.syntax.document import DocumentSyntax

DEFINITION_DELETED = "definition-deleted"
MASS_DELETION = "mass-deletion"
FILE_EMPTIED = "file-emptied"
#: An edit of a protected path (the ``protected-path`` reason an agent is told).
PROTECTED_EDIT = "protected-path"
FILE_DELETED = "file-deleted"
FILE_RENAMED = "file-renamed"

_LISTED_RANGES = 3

Position = tuple[int, int]


class TextEdit(NamedTuple):
    """Replace the new text between ``start`` and ``end`` with ``text``; positions are
    0-based (line, column in code points) in the new text."""

    start: Position
    end: Position
    text: str


class Finding(NamedTuple):
    """One destructive effect of a change; ``kind`` is a stable identifier."""

    kind: str
    message: str
    path: str
    #: Lines of the new text to mark (1-based, inclusive); None for file operations.
    anchor: LineSpan | None
    #: Lines of the baseline that are destroyed (1-based, inclusive): what an approval
    #: records as ``start_line``/``end_line``. None when the content is unknown.
    baseline: LineSpan | None
    #: What an approval is keyed on: the baseline content hash of what is destroyed
    #: (a node's hash, the deleted lines' hash, or the whole file's ``before_hash``).
    content_hash: str | None
    #: Baseline definitions affected, with their baseline lines and content hashes.
    nodes: tuple[AstNode, ...] = ()
    #: Edits putting the destroyed baseline text back ("Restore deleted code").
    restore: tuple[TextEdit, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The details an agent acts on; the restore text stays out so ledger records
        that copy verdict details do not swallow whole files."""

        def span(s: LineSpan | None) -> dict[str, int] | None:
            return None if s is None else {"start_line": s.start, "end_line": s.end}

        return {
            "kind": self.kind,
            "path": self.path,
            "range": span(self.anchor),
            "baseline_range": span(self.baseline),
            "content_hash": self.content_hash,
            "nodes": [node.to_json() for node in self.nodes],
        }


def _range_label(start: int, end: int) -> str:
    return str(start) if start == end else f"{start}–{end}"


def _lines_label(start: int, end: int) -> str:
    return f"{'line' if start == end else 'lines'} {_range_label(start, end)}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _is_blank(text: str) -> bool:
    return not text.strip()


def _break_length(text: str) -> int:
    """Length of the line break ending ``text`` (0 if it ends open), by the same rule as
    ``str.splitlines`` so it agrees with the line indices."""
    if not text:
        return 0
    last = text.splitlines(keepends=True)[-1]
    return len(last) - len(last.splitlines()[0])


class _Texts:
    """The two sides of a change, with the lookups every rule shares."""

    def __init__(self, old_text: str, new_text: str) -> None:
        self.old_text = old_text
        self.old = split_lines(old_text)
        self.new = split_lines(new_text)
        self.old_keep = old_text.splitlines(keepends=True)
        self.new_keep = new_text.splitlines(keepends=True)
        self.newline = _newline(new_text) or _newline(old_text) or "\n"

    def anchor(self, lo: int, hi: int) -> LineSpan:
        """The new-text lines [lo, hi) to mark, or the line standing at ``lo`` if empty."""
        if hi > lo:
            return LineSpan(lo + 1, hi)
        line = min(lo, max(len(self.new) - 1, 0)) + 1
        return LineSpan(line, line)

    def anchor_across(self, first: Hunk, last: Hunk) -> LineSpan:
        """The new-text lines to mark for the hunks ``first`` to ``last``."""
        return LineSpan(
            self.anchor(first.new_start, first.new_end).start,
            self.anchor(last.new_start, last.new_end).end,
        )

    def position(self, line: int) -> Position:
        """Start of new-text line ``line``; at or past the end, the end of the text."""
        if line < len(self.new_keep):
            return line, 0
        if not self.new_keep:
            return 0, 0
        last = self.new_keep[-1]
        if _break_length(last):
            return len(self.new_keep), 0
        return len(self.new_keep) - 1, len(last)

    def restore(self, lo: int, hi: int, pieces: Sequence[str]) -> TextEdit:
        """Replace new lines [lo, hi) with ``pieces`` (lines with their breaks, as from
        ``splitlines(keepends=True)``), fixing up breaks at the seams and the end."""
        pieces = [p if _break_length(p) else p + self.newline for p in pieces[:-1]] + list(
            pieces[-1:]
        )
        text = "".join(pieces)
        if hi < len(self.new_keep) and not _break_length(text):
            text += self.newline
        if lo == len(self.new_keep) and self.new_keep and not _break_length(self.new_keep[-1]):
            # appending after an unterminated last line: the break goes first
            text = self.newline + text[: len(text) - _break_length(text)]
        return TextEdit(self.position(lo), self.position(hi), text)


def _newline(text: str) -> str | None:
    match = re.search(r"\r\n|\r|\n", text)
    return match.group() if match else None


def _outermost(nodes: Sequence[AstNode]) -> tuple[AstNode, ...]:
    """Nodes not inside another (input in document order, outer before inner)."""
    out: list[AstNode] = []
    for node in nodes:
        if not out or node.start_line > out[-1].end_line:
            out.append(node)
    return tuple(out)


class _HunkIndex:
    """Which hunk holds a line, on either side, by bisection."""

    def __init__(self, hunks: Sequence[Hunk]) -> None:
        self.hunks = hunks
        self._old = [h.old_start for h in hunks]
        self._new = [h.new_start for h in hunks]

    def old_changed(self, line: int) -> bool:
        """Whether 0-based baseline ``line`` lies in a hunk."""
        n = bisect.bisect_right(self._old, line) - 1
        return n >= 0 and line < self.hunks[n].old_end

    def new_changed(self, line: int) -> bool:
        n = bisect.bisect_right(self._new, line) - 1
        return n >= 0 and line < self.hunks[n].new_end

    def changed_old_lines(self, start: int, end: int) -> int:
        """How many baseline lines of [start, end) lie in hunks."""
        n = max(bisect.bisect_right(self._old, start) - 1, 0)
        count = 0
        for hunk in self.hunks[n:]:
            if hunk.old_start >= end:
                break
            count += max(0, min(end, hunk.old_end) - max(start, hunk.old_start))
        return count

    def new_within(self, lo: int, hi: int) -> list[Hunk]:
        """Hunks whose new lines lie inside new lines [lo, hi)."""
        n = bisect.bisect_left(self._new, lo)
        out = []
        for hunk in self.hunks[n:]:
            if hunk.new_start >= hi:
                break
            if hunk.new_end <= hi:
                out.append(hunk)
        return out

    def map_boundary(self, line: int, *, side: str) -> int:
        """Where the boundary before baseline ``line`` falls in the new text.

        A boundary strictly inside a hunk cannot be placed exactly; it goes to the side
        that keeps that hunk's new lines out of the mapped region (after them for a
        region's start, before them for its end), so restoring a region never
        overwrites text that replaced something outside it.
        """
        n = bisect.bisect_left(self._old, line) - 1
        if n < 0:
            return line
        hunk = self.hunks[n]
        if line >= hunk.old_end:
            return line + hunk.new_end - hunk.old_end
        return hunk.new_end if side == "start" else hunk.new_start


def _shape(lines: Sequence[str], node: AstNode) -> str:
    """A definition's text without indentation and with its own name blanked: equal for
    a renamed or re-nested copy of the same definition."""
    body = "\n".join(line.strip() for line in lines[node.start_line - 1 : node.end_line])
    simple = node.name.rsplit(".", 1)[-1]
    if simple:
        body = re.sub(rf"(?<!\w){re.escape(simple)}(?!\w)", "\0", body, count=1)
    return body


def _deleted_definitions(
    texts: _Texts,
    index: _HunkIndex,
    overlapping: Sequence[AstNode],
    new_changed: Callable[[], list[AstNode]],
) -> list[AstNode]:
    """The outermost baseline definitions the change deletes (rules in the module doc)."""
    candidates = [n for n in overlapping if index.old_changed(n.start_line - 1)]
    if not candidates:
        return []
    unmatched = list(candidates)
    pool = new_changed()
    keys: tuple[Callable[[Sequence[str], AstNode], Hashable], ...] = (
        lambda _, n: (n.name, n.kind),
        lambda _, n: n.content_hash,
        _shape,
    )
    for key in keys:
        if not unmatched or not pool:
            break
        available: dict[Hashable, list[AstNode]] = defaultdict(list)
        for node in pool:
            available[key(texts.new, node)].append(node)
        still: list[AstNode] = []
        for node in unmatched:
            found = available.get(key(texts.old, node))
            if found:
                pool.remove(found.pop())
            else:
                still.append(node)
        unmatched = still
    deleted: list[AstNode] = []
    for node in unmatched:
        if deleted and node.end_line <= deleted[-1].end_line:
            continue  # inside a definition already reported
        length = node.end_line - node.start_line + 1
        surviving = length - index.changed_old_lines(node.start_line - 1, node.end_line)
        if surviving * 2 < length:
            deleted.append(node)
    return deleted


#: Openers of text that spans lines without being code. A definition moved inside one
#: (turned into a string literal, a block comment, a template string) still reads line
#: for line, so no line of it counts as changed, yet it no longer exists.
_DISGUISES = ('"""', "'''", "/*", "`")


def _adds_opener(texts: _Texts, hunks: Sequence[Hunk]) -> bool:
    added = (texts.new[i] for h in hunks for i in range(h.new_start, h.new_end))
    return any(opener in line for line in added for opener in _DISGUISES)


def _disguised(
    texts: _Texts,
    hunks: Sequence[Hunk],
    deleted: Sequence[AstNode],
    old_tree: Callable[[], DocumentSyntax | None],
    new_tree: Callable[[], DocumentSyntax | None],
) -> list[AstNode]:
    """The outermost baseline definitions whose header line is still in the new text
    but which the new text no longer defines (none of that name and kind): turned into
    text. Only looked for when the change adds such an opener (a parse otherwise)."""
    if not _adds_opener(texts, hunks):
        return []
    old, new = old_tree(), new_tree()
    if old is None or new is None:
        return []
    known = {(n.name, n.kind) for n in (*deleted, *new.definitions())}
    found: list[AstNode] = []
    for node in old.definitions():
        if (node.name, node.kind) in known:
            continue
        if found and node.end_line <= found[-1].end_line:
            continue  # inside a definition already reported
        header = texts.old[node.start_line - 1].strip()
        if header and any(header in line for line in texts.new):
            found.append(node)
    return found


def _definition_finding(rel: str, texts: _Texts, index: _HunkIndex, node: AstNode) -> Finding:
    start, end = node.start_line - 1, node.end_line
    lo = index.map_boundary(start, side="start")
    hi = max(lo, index.map_boundary(end, side="end"))
    # Restoring replaces what survives of the definition, and keeps any new text
    # written in its place (after it), so the fix never destroys work either.
    kept = [
        line for h in index.new_within(lo, hi) for line in texts.new_keep[h.new_start : h.new_end]
    ]
    return Finding(
        DEFINITION_DELETED,
        f"deletes {node.kind} `{node.name}` ({_lines_label(node.start_line, node.end_line)})",
        rel,
        texts.anchor(lo, hi),
        LineSpan(node.start_line, node.end_line),
        node.content_hash,
        (node,),
        (texts.restore(lo, hi, texts.old_keep[start:end] + kept),),
    )


def _mass_deletion(
    rel: str,
    texts: _Texts,
    hunks: Sequence[Hunk],
    deleted_defs: Sequence[AstNode],
    overlapping: Sequence[AstNode],
    limit: int,
) -> Finding | None:
    """Net deleted lines, not counting those inside reported deleted definitions."""
    involved: list[tuple[Hunk, int]] = []
    for hunk in hunks:
        covered = sum(
            max(0, min(hunk.old_end, d.end_line) - max(hunk.old_start, d.start_line - 1))
            for d in deleted_defs
        )
        count = hunk.deleted - hunk.inserted - covered
        if count > 0:
            involved.append((hunk, count))
    total = sum(count for _, count in involved)
    if total <= limit:
        return None
    ranges = [_range_label(h.old_start + 1, h.old_end) for h, _ in involved]
    shown = ", ".join(ranges[:_LISTED_RANGES]) + (", …" if len(ranges) > _LISTED_RANGES else "")
    first, last = involved[0][0], involved[-1][0]
    deleted_lines = [line for h, _ in involved for line in texts.old[h.old_start : h.old_end]]
    nodes = tuple(
        n
        for n in overlapping
        if any(n.start_line <= h.old_end and n.end_line > h.old_start for h, _ in involved)
    )
    return Finding(
        MASS_DELETION,
        f"deletes {_plural(total, 'line')} ({shown})",
        rel,
        texts.anchor_across(first, last),
        LineSpan(first.old_start + 1, last.old_end),
        content_hash(deleted_lines),
        nodes,
        tuple(
            texts.restore(h.new_start, h.new_start, texts.old_keep[h.old_start : h.old_end])
            for h, _ in involved
        ),
    )


def _emptied(rel: str, texts: _Texts, old_defs: Callable[[], list[AstNode]]) -> Finding:
    return Finding(
        FILE_EMPTIED,
        f"empties the file ({_plural(len(texts.old), 'line')})",
        rel,
        LineSpan(1, 1),
        LineSpan(1, len(texts.old)),
        text_hash(texts.old_text),
        _outermost(old_defs()),
        (texts.restore(0, len(texts.new_keep), texts.old_keep),),
    )


def classify_change(
    rel: str,
    old_text: str,
    new_text: str,
    language: str | None = None,
    *,
    max_deleted_lines: int = DEFAULT_MAX_DELETED_LINES,
    protected: ProtectedPaths | None = None,
    old_syntax: DocumentSyntax | None = None,
    new_syntax: DocumentSyntax | None = None,
) -> tuple[Finding, ...]:
    """What changing ``rel`` from ``old_text`` (the baseline) to ``new_text`` destroys.

    ``language`` is an LSP languageId or our language name (the path's extension
    otherwise). Pass the server's live trees as ``old_syntax``/``new_syntax`` (they must
    match the texts): then nothing is parsed, and only definitions overlapping the
    changed lines are queried, which keeps a keystroke in a 10,000-line file cheap.
    Without them, a side is parsed only when a rule needs it.
    """
    if old_text == new_text:
        return ()
    texts = _Texts(old_text, new_text)
    hunks = diff_lines(texts.old, texts.new)
    if not hunks:
        return ()
    findings: list[Finding] = []
    lang = language_for(language=language, path=rel)
    grammar = lang if lang in GRAMMARS else None

    def syntax(side: DocumentSyntax | None, text: str) -> DocumentSyntax | None:
        if side is not None or grammar is None:
            return side
        from intent_ls.syntax.document import DocumentSyntax

        return DocumentSyntax.parse(text, grammar)

    if not _is_blank(old_text) and _is_blank(new_text):
        old_tree = syntax(old_syntax, old_text)
        findings.append(_emptied(rel, texts, lambda: old_tree.definitions() if old_tree else []))
    else:
        index = _HunkIndex(hunks)
        deleting = [LineSpan(h.old_start + 1, h.old_end) for h in hunks if h.deleted]
        old_tree = syntax(old_syntax, old_text) if deleting else None
        overlapping = old_tree.definitions_for_spans(deleting) if old_tree else []

        def new_changed() -> list[AstNode]:
            spans = changed_spans(hunks)
            tree = syntax(new_syntax, new_text) if spans else None
            if tree is None:
                return []
            nodes = tree.definitions_for_spans(spans)
            return [n for n in nodes if index.new_changed(n.start_line - 1)]

        deleted = _deleted_definitions(texts, index, overlapping, new_changed)
        deleted += _disguised(
            texts,
            hunks,
            deleted,
            lambda: old_tree or syntax(old_syntax, old_text),
            lambda: syntax(new_syntax, new_text),
        )
        findings.extend(_definition_finding(rel, texts, index, node) for node in deleted)
        mass = _mass_deletion(rel, texts, hunks, deleted, overlapping, max_deleted_lines)
        if mass is not None:
            findings.append(mass)
    found = _protected_edit(rel, texts, hunks, old_text, protected)
    if found is not None:
        findings.append(found)
    return tuple(findings)


def _protected_edit(
    rel: str, texts: _Texts, hunks: Sequence[Hunk], old_text: str, protected: ProtectedPaths | None
) -> Finding | None:
    """An edit of a protected file. Only an existing file is protected: adding a
    migration is how schemas change; rewriting one that already ran is the danger."""
    pattern = (protected or ProtectedPaths()).match(rel) if texts.old else None
    if pattern is None:
        return None
    first, last = hunks[0], hunks[-1]
    return Finding(
        PROTECTED_EDIT,
        f"edits protected path `{rel}` (matches `{pattern}`)",
        rel,
        texts.anchor_across(first, last),
        LineSpan(1, len(texts.old)),
        text_hash(old_text),
    )


def classify_file_operation(
    old_rel: str,
    new_rel: str | None = None,
    *,
    text: str | None = None,
    language: str | None = None,
) -> Finding:
    """Deleting (``new_rel`` None) or renaming a file, from workspace/willDeleteFiles or
    willRenameFiles. Both are destructive for whoever governs ``old_rel``: its history
    and every reference to its path. Pass the file's ``text`` (read at the edge) to key
    the approval on its content and list its definitions; without it the finding has
    no hash and an approval for the path alone covers it."""
    lines = split_lines(text) if text is not None else []
    nodes: tuple[AstNode, ...] = ()
    lang = language_for(language=language, path=old_rel)
    if text is not None and lang in GRAMMARS:
        from intent_ls.syntax.document import DocumentSyntax

        nodes = _outermost(DocumentSyntax.parse(text, lang).definitions())
    size = f" ({_plural(len(lines), 'line')})" if text is not None else ""
    if new_rel is None:
        kind, message = FILE_DELETED, f"deletes file `{old_rel}`{size}"
    else:
        kind, message = FILE_RENAMED, f"renames `{old_rel}` to `{new_rel}`{size}"
    return Finding(
        kind,
        message,
        old_rel,
        None,
        LineSpan(1, max(1, len(lines))) if text is not None else None,
        text_hash(text) if text is not None else None,
        nodes,
    )
