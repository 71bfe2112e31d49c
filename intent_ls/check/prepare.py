"""What ``check`` prepares before it reads the ledger: the line diff of each changed file
the rule judges line by line, and the :class:`~intent_ls.ledger.verify.Interest` that has
the verifying pass hand back the lines able to answer the rule's questions."""

from __future__ import annotations

from pathlib import Path

import attrs

from intent_ls.check.git import FileChange
from intent_ls.check.symlinks import is_link_change
from intent_ls.check.windows import MIN_MOVED_CHARS, substance, windows
from intent_ls.common.diff import Hunk, diff_lines, split_lines
from intent_ls.ledger.index import CACHE_RELPATH
from intent_ls.ledger.index.schema import usable
from intent_ls.ledger.verify import Interest
from intent_ls.workspace.discover import Workspace

#: Windows of changed lines prepared before the ledger is read (:func:`ledger_interest`); the
#: moved-code search asks the index about any other.
MAX_PREPARED_WINDOWS = 100_000


@attrs.frozen
class Diff:
    """The line diff of a changed text file that the rule judges line by line."""

    old: list[str]
    new: list[str]
    hunks: list[Hunk]
    changed: list[int]  # 1-based lines of ``new`` inside a hunk

    @classmethod
    def of(cls, ws: Workspace, change: FileChange) -> Diff | None:
        """None for a change not judged by lines (deleted, binary, a symlink, ungoverned)."""
        if (
            change.status == "D"
            or change.binary
            or is_link_change(change)
            or not ws.classify_rel(change.path).governed
        ):
            return None
        old = split_lines(change.old_text or "")
        new = split_lines(change.new_text or "")
        hunks = diff_lines(old, new)
        changed = sorted({line for h in hunks for line in range(h.new_start + 1, h.new_end + 1)})
        return cls(old, new, hunks, changed)


def index_cached(root: Path) -> bool:
    cache = root / CACHE_RELPATH
    return cache.is_file() and not cache.is_symlink() and usable(cache)


def ledger_interest(governed: list[FileChange], diffs: dict[FileChange, Diff]) -> Interest:
    """What the rule will ask of the ledger about these changes: the records of each
    changed path (old and new), and the keys of the windows of changed lines the
    moved-code search may look for (:func:`~intent_ls.check.windows.windows`, up to
    :data:`MAX_PREPARED_WINDOWS`; only substantial ones, the only ones it asks about)."""
    paths = {p for c in governed for p in (c.path, c.old_path) if p is not None}
    keys: set[int] = set()
    budget = MAX_PREPARED_WINDOWS
    for diff in diffs.values():
        sums = [0]
        for line in diff.new:
            sums.append(sums[-1] + substance(line))
        encoded = [line.encode("utf-8") for line in diff.new]
        for first, last, raw in windows(encoded, diff.changed):
            budget -= 1
            if budget < 0:
                break
            if sums[last] - sums[first - 1] >= MIN_MOVED_CHARS:
                keys.add(int.from_bytes(raw[:8], "big", signed=True))
    return Interest(frozenset(paths), frozenset(keys))
