"""Optimistic locking: a buffer is stale when the file changed on disk underneath it.

Two editors (or an editor and an agent) on one workspace must not silently overwrite
each other. Each front door remembers the disk content hash of a document's baseline
(at open, and after each save) and, whenever it learns the disk changed (watched-file
events, or a fresh read just before saving), asks :func:`check_stale`. The rule:

==========================  ================================  ======
disk since the baseline     buffer                            stale?
==========================  ================================  ======
unchanged                   anything                          no
changed                     equal to the new disk content     no
changed (or deleted)        different                         yes
==========================  ================================  ======

Hashes follow :func:`intent_ls.common.hashing.text_hash`, so line endings and a final newline
never make a buffer stale. Nothing here reads a file: the front door reads the disk and
the ledger index, and passes what it found. The verdict, its approval and the willSave
re-check are the rule's (:mod:`intent_ls.policy.rules.stale_file`).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from intent_ls.common.diff import split_lines
from intent_ls.common.hashing import text_hash

#: The approval key of a file that no longer exists on disk: keeping one's version then
#: means re-creating it, approved against "no content".
ABSENT_HASH = text_hash("")
_FRACTION = re.compile(r"\.\d+Z$")


class Changer(NamedTuple):
    """Who wrote the disk content, as the ledger knows it."""

    contributor: str | None
    model_id: str | None
    intent_id: str | None
    timestamp: str | None

    def describe(self) -> str:
        """``by ai anthropic/claude-sonnet-4 for INT-002 at 2026-11-21T10:00:00Z``."""
        who = " ".join(part for part in (self.contributor, self.model_id) if part)
        out = f"by {who or 'unknown'}"
        if self.intent_id:
            out += f" for {self.intent_id}"
        if self.timestamp:
            out += f" at {_FRACTION.sub('Z', self.timestamp)}"
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "contributor": self.contributor,
            "model_id": self.model_id,
            "intent_id": self.intent_id,
            "timestamp": self.timestamp,
        }


class DiskState(NamedTuple):
    """What the front door read of the file on disk; None hashes mean "no such file"."""

    #: Disk content hash when the baseline was taken (at open / after the last save).
    baseline_hash: str | None
    #: Disk content hash now.
    current_hash: str | None
    #: Who wrote ``current_hash``, when the ledger knows
    #: (see :func:`intent_ls.ledger.writers.changer_from_index`).
    changed_by: Changer | None = None
    #: How the baseline was taken, for the message: "opened", "saved", "read".
    since: str = "opened"


class StaleFile(NamedTuple):
    """A finding: the buffer would overwrite disk content it has never seen."""

    path: str
    baseline_hash: str | None
    disk_hash: str | None
    buffer_hash: str
    #: Lines of the buffer (at least 1): the range a "Keep my version" approval covers.
    buffer_lines: int = 1
    changed_by: Changer | None = None
    since: str = "opened"

    @property
    def approval_hash(self) -> str:
        """ "Keep my version" is approved against the disk content it overwrites, so a
        further change on disk needs a new decision."""
        return self.disk_hash or ABSENT_HASH

    @property
    def message(self) -> str:
        what = "changed on disk" if self.disk_hash is not None else "was deleted on disk"
        by = f" ({self.changed_by.describe()})" if self.changed_by else ""
        return f"{self.path} {what}{by} since you {self.since} it"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "baseline_hash": self.baseline_hash,
            "disk_hash": self.disk_hash,
            "buffer_hash": self.buffer_hash,
            "changed_by": self.changed_by.to_json() if self.changed_by else None,
        }


def check_stale(rel: str, disk: DiskState, buffer_text: str) -> StaleFile | None:
    """The decision table of the module doc; ``buffer_text`` is what would be written."""
    if disk.current_hash == disk.baseline_hash:
        return None
    buffer_hash = text_hash(buffer_text)
    if buffer_hash == disk.current_hash:
        return None
    return StaleFile(
        rel,
        disk.baseline_hash,
        disk.current_hash,
        buffer_hash,
        max(1, len(split_lines(buffer_text))),
        disk.changed_by,
        disk.since,
    )
