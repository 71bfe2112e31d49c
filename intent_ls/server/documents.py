"""Edit tracking: each open document's baseline and the line regions changed since.

The changed regions are always recomputed from two texts (baseline vs. buffer) rather
than accumulated from change events, so undoing an edit makes its diagnostic vanish and
lines inserted above an edit move it, with no bookkeeping.

A keystroke in a 10,000-line file must stay cheap, so the buffer is kept as a list of
lines (with their endings) that incremental changes are spliced into: unchanged lines
stay the very same string objects as in the baseline, and the common prefix and suffix
are found by bisection on list slices, which compares them by identity at C speed.
This list is the one copy every change is applied to: each position is converted once
(:mod:`intent_ls.server.positions`, C speed even on a 1,000,000-character line) and
pygls' own copy of the document is set to the result rather than converted again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs
from lsprotocol import types

from intent_ls.common.diff import Hunk, common_prefix, common_suffix, diff_lines
from intent_ls.policy.approvals import Approval
from intent_ls.server.analysis import Live
from intent_ls.server.disk import DiskTracker
from intent_ls.server.folders import Folder
from intent_ls.server.positions import FastCodec
from intent_ls.server.trace import LEDGER_REL, History
from intent_ls.server.trees import LiveTree
from intent_ls.workspace.discover import PathInfo

#: Larger buffers (in characters) are not diffed: any edit flags the whole file.
MAX_TRACKED_CHARS = 5 * 1024 * 1024


@attrs.frozen
class Region:
    """Changed lines ``start..end`` (0-based, inclusive) of the current text.

    ``deleted`` counts baseline lines removed here beyond those replaced; a pure deletion
    has ``inserted=False`` and sits on the line where the removed lines used to be.
    """

    start: int
    end: int
    inserted: bool = True
    deleted: int = 0


def untracked_reason(text: str) -> str | None:
    if len(text) > MAX_TRACKED_CHARS:
        return "it is larger than 5 MB"
    if "\0" in text:
        return "it is a binary file"
    return None


class TrackedDocument:
    def __init__(self, uri: str, text: str, folder: Folder | None, info: PathInfo | None) -> None:
        self.uri = uri
        self.folder = folder
        self.info = info
        self.version: int | None = None
        self.untracked: str | None = None
        self.edited = False
        #: Lines *with* their endings, so that splicing and diffing see line breaks too.
        self.lines: list[str] = []
        self.baseline: list[str] = []
        self._regions: list[Region] | None = None
        #: Counts baseline changes (rebase, absorb, restore): results computed against
        #: an older baseline are recognised.
        self.baseline_version = 0
        self.update(text)
        self.rebase()
        # What the other concerns keep per governed document (set up by the server):
        self.language: str | None = None
        #: The syntax tree kept in step with the buffer (supported languages only).
        self.tree: LiveTree | None = None
        #: The disk content the buffer is based on (stale-file detection).
        self.disk: DiskTracker | None = None
        #: The text of the last trace record (the old side of the next record).
        self.record_text: str | None = None
        #: The last full analysis, its diagnostics, and the file's ledger history.
        self.live: Live | None = None
        self.extra: list[types.Diagnostic] = []
        self.history: History | None = None
        #: Approvals made since the last record: the next record lists them.
        self.pending_approvals: list[Approval] = []

    @property
    def rel(self) -> str | None:
        return self.info.rel if self.info else None

    @property
    def governed(self) -> bool:
        return (
            self.folder is not None
            and self.folder.governed
            and self.info is not None
            and self.info.governed
        )

    @property
    def is_ledger(self) -> bool:
        """The folder's ``agent_trace.jsonl`` (append-only: see :mod:`.append_only`)."""
        return self.folder is not None and self.rel == LEDGER_REL

    def update(self, text: str) -> None:
        """Replaces the whole buffer (open, full-document sync, or resynchronisation)."""
        self.untracked = untracked_reason(text)
        self.lines = [] if self.untracked else text.splitlines(keepends=True)
        self.edited = True
        self._regions = None

    def follow(
        self,
        changes: Sequence[types.TextDocumentContentChangeEvent],
        codec: FastCodec,
        source: Callable[[], str],
    ) -> tuple[str, list[types.TextDocumentContentChangeEvent]]:
        """Applies the editor's changes, converting each position once; returns the new
        text (pygls' copy is set to it) and the changes with code-point columns (for the
        syntax tree). ``source`` is the text before the changes, needed only while the
        document is untracked (no line list is kept then)."""
        self.edited = True
        self._regions = None
        text: str | None = None
        converted: list[types.TextDocumentContentChangeEvent] = []
        for change in changes:
            if not isinstance(change, types.TextDocumentContentChangePartial):
                text = change.text
                self.update(text)
                converted.append(change)
            elif self.untracked:
                text, rng = _splice_text(source() if text is None else text, change, codec)
                converted.append(
                    types.TextDocumentContentChangePartial(range=rng, text=change.text)
                )
            else:
                converted.append(self._splice(change, codec))
                text = None
        if text is None:
            text = "".join(self.lines)
        if self.untracked or len(text) > MAX_TRACKED_CHARS or "\0" in text:
            self.update(text)  # whether it is (still) untracked, and why
        return text, converted

    def _splice(
        self, change: types.TextDocumentContentChangePartial, codec: FastCodec
    ) -> types.TextDocumentContentChangePartial:
        lines = self.lines
        rng = clamped(lines, change.range, codec)
        first, last = rng.start.line, rng.end.line
        if first >= len(lines):
            head, tail, first, last = "", "", len(lines), len(lines) - 1
        else:
            head = lines[first][: rng.start.character]
            tail = lines[last][rng.end.character :] if last < len(lines) else ""
            last = min(last, len(lines) - 1)
        # One neighbour line on each side is re-split too: a "\r" meeting a "\n" across
        # the splice makes one line break out of two.
        lo, hi = max(first - 1, 0), min(last + 2, len(lines))
        segment = (
            "".join(lines[lo:first]) + head + change.text + tail + "".join(lines[last + 1 : hi])
        )
        lines[lo:hi] = segment.splitlines(keepends=True)
        return types.TextDocumentContentChangePartial(range=rng, text=change.text)

    def rebase(self) -> None:
        """The buffer becomes the baseline (at open, and on a save that was allowed)."""
        self.baseline_version += 1
        self.baseline = list(self.lines)
        self.edited = False
        self._regions = None

    def restore_baseline(self, baseline: list[str]) -> None:
        """Puts back an earlier baseline (a save turned out not to be allowed)."""
        self.baseline_version += 1
        self.baseline = baseline
        self.edited = True
        self._regions = None

    def hunks(self) -> list[Hunk]:
        old, new = self.baseline, self.lines
        prefix = common_prefix(old, new)
        suffix = common_suffix(old, new, prefix)
        return [
            Hunk(h.old_start + prefix, h.old_end + prefix, h.new_start + prefix, h.new_end + prefix)
            for h in diff_lines(old[prefix : len(old) - suffix], new[prefix : len(new) - suffix])
        ]

    def regions(self) -> list[Region]:
        if self._regions is None:
            self._regions = self._compute_regions()
        return self._regions

    def _compute_regions(self) -> list[Region]:
        if self.untracked:
            return [Region(0, 0)] if self.edited else []
        regions: list[Region] = []
        last = max(len(self.lines) - 1, 0)
        for h in self.hunks():
            extra = max(0, h.deleted - h.inserted)
            if h.inserted:
                region = Region(h.new_start, h.new_end - 1, True, extra)
            else:
                anchor = min(h.new_start, last)
                region = Region(anchor, anchor, False, extra)
            if regions and region.start <= regions[-1].end + 1 and region.inserted:
                prev = regions[-1]
                regions[-1] = Region(
                    prev.start, max(prev.end, region.end), True, prev.deleted + region.deleted
                )
            else:
                regions.append(region)
        return regions

    def absorb(self, first: int, last: int) -> int:
        """Accepts the changes touching lines ``first..last`` into the baseline.

        Used when a human approves an edit: those lines stop being flagged while later
        edits elsewhere in the file are still checked. Returns how many hunks it took.
        """
        taken = 0
        self.baseline_version += 1
        for h in reversed(self.hunks()):
            top = h.new_start
            bottom = max(h.new_end - 1, h.new_start)
            if bottom < first or top > last:
                continue
            self.baseline[h.old_start : h.old_end] = self.lines[h.new_start : h.new_end]
            taken += 1
        if self.untracked and self.edited:
            self.edited = False
            taken += 1
        self._regions = None
        return taken


def clamped(lines: Sequence[str], rng: types.Range, codec: FastCodec) -> types.Range:
    """``rng`` in code points, clamped as LSP says: a character past a line's end is its
    end, a line past the document's end is the end ((len(lines), 0)); in order."""

    def position(pos: types.Position) -> types.Position:
        if pos.line >= len(lines):
            return types.Position(len(lines), 0)
        return types.Position(pos.line, codec.column(lines[pos.line], pos.character))

    start, end = position(rng.start), position(rng.end)
    if (end.line, end.character) < (start.line, start.character):
        start, end = end, start
    return types.Range(start=start, end=end)


def _splice_text(
    text: str, change: types.TextDocumentContentChangePartial, codec: FastCodec
) -> tuple[str, types.Range]:
    """One range change applied to a whole text (untracked documents keep no lines)."""
    lines = text.splitlines(keepends=True)
    rng = clamped(lines, change.range, codec)

    def offset(pos: types.Position) -> int:
        return sum(map(len, lines[: pos.line])) + pos.character

    return text[: offset(rng.start)] + change.text + text[offset(rng.end) :], rng
