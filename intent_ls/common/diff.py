"""Line diffs between a document's baseline and its current text.

Both the language server (which lines carry a diagnostic) and the ledger (which ranges a
record attributes) need the same answer, and computing it from the two texts rather than
from accumulated edit events makes an undo collapse back to "no change" for free.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple


class Hunk(NamedTuple):
    """One changed block; half-open, 0-based line indices on both sides."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int

    @property
    def inserted(self) -> int:
        return self.new_end - self.new_start

    @property
    def deleted(self) -> int:
        return self.old_end - self.old_start


class LineSpan(NamedTuple):
    """Inclusive 1-based line span, the unit Agent Trace ranges use."""

    start: int
    end: int


def split_lines(text: str) -> list[str]:
    """Splits like an editor does: CRLF, CR and LF all end a line; no trailing empty line.

    A fresh list each call, of the line strings of the last few texts split: one save
    splits the same whole document at several steps, and the diffs compare unchanged
    lines by identity first."""
    return list(_lines(text))


@lru_cache(maxsize=8)
def _lines(text: str) -> tuple[str, ...]:
    return tuple(text.splitlines())


def diff_lines(old: Sequence[str], new: Sequence[str]) -> list[Hunk]:
    """Hunks turning ``old`` into ``new``.

    Common prefix and suffix are stripped before difflib runs, so a small edit in a
    10,000-line file costs a few slice comparisons rather than a quadratic matcher.
    """
    prefix = common_prefix(old, new)
    suffix = common_suffix(old, new, prefix)
    old_mid = old[prefix : len(old) - suffix]
    new_mid = new[prefix : len(new) - suffix]
    if not old_mid and not new_mid:
        return []
    if not old_mid or not new_mid or len(old_mid) * len(new_mid) > 4_000_000:
        return [Hunk(prefix, len(old) - suffix, prefix, len(new) - suffix)]
    matcher = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
    hunks = [
        Hunk(prefix + i1, prefix + i2, prefix + j1, prefix + j2)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]
    return _slid_down(hunks, old, new)


def _slid_down(hunks: list[Hunk], old: Sequence[str], new: Sequence[str]) -> list[Hunk]:
    """Moves each pure insertion or deletion as far down as equal lines allow, where the
    prefix stripping puts a lone change: deleting a block that begins like the line
    after it (a blank line, a closing brace) is then reported at the same place whether
    or not another change elsewhere made difflib align the whole file."""
    out: list[Hunk] = []
    for n, h in enumerate(hunks):
        old_limit = hunks[n + 1].old_start if n + 1 < len(hunks) else len(old)
        new_limit = hunks[n + 1].new_start if n + 1 < len(hunks) else len(new)
        if h.inserted == 0:
            while h.old_end < old_limit and old[h.old_start] == old[h.old_end]:
                h = Hunk(h.old_start + 1, h.old_end + 1, h.new_start + 1, h.new_end + 1)
        elif h.deleted == 0:
            while h.new_end < new_limit and new[h.new_start] == new[h.new_end]:
                h = Hunk(h.old_start + 1, h.old_end + 1, h.new_start + 1, h.new_end + 1)
        out.append(h)
    return out


def common_prefix(a: Sequence[str] | bytes, b: Sequence[str] | bytes) -> int:
    """Length of the common prefix (of two line lists, or two byte strings), by bisection
    on slices: the comparisons run at C speed (and by identity first, for lines shared
    between the two lists)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: Sequence[str] | bytes, b: Sequence[str] | bytes, prefix: int) -> int:
    """Length of the common suffix not overlapping the first ``prefix`` items."""
    la, lb = len(a), len(b)
    lo, hi = 0, min(la, lb) - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def changed_spans(hunks: Sequence[Hunk]) -> list[LineSpan]:
    """Contiguous blocks of changed lines in the new text (1-based, inclusive).

    Pure deletions leave no line of their own in the new text; they are reported in
    :func:`deleted_line_count` instead. Adjacent blocks are merged.
    """
    spans: list[LineSpan] = []
    for hunk in hunks:
        if hunk.inserted == 0:
            continue
        start, end = hunk.new_start + 1, hunk.new_end
        if spans and start <= spans[-1].end + 1:
            spans[-1] = LineSpan(spans[-1].start, max(end, spans[-1].end))
        else:
            spans.append(LineSpan(start, end))
    return spans


def deleted_line_count(hunks: Sequence[Hunk]) -> int:
    return sum(max(0, h.deleted - h.inserted) for h in hunks)
