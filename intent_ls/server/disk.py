"""An open document's file on disk: read as an editor shows it, and tracked.

:class:`DiskTracker` remembers, per open governed document, the disk content the
buffer's baseline came from and what the disk holds now; :mod:`intent_ls.server.stale`
turns what it sees into verdicts, quick fixes and questions. Reading never blocks on a
FIFO or device and stops at :data:`MAX_DISK_BYTES`.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from intent_ls.common.hashing import text_hash
from intent_ls.common.safe_io import FileTooLargeError, UnsafePathError, read_regular
from intent_ls.common.uris import path_of_uri
from intent_ls.policy.rules.stale_file import SaveCheck
from intent_ls.policy.stale import Changer, DiskState

#: Disk reads of a document stop here: well above the largest document the server tracks
#: (``documents.MAX_TRACKED_CHARS`` characters of up to 4 UTF-8 bytes each).
MAX_DISK_BYTES = 32 * 1024 * 1024
#: How far a file system's coarse clock may lag ``time.time_ns()`` (mtime comparisons).
CLOCK_SLACK_NS = 1_000_000_000


@attrs.frozen
class SaveContext:
    """What willSaveWaitUntil found on disk just before the write."""

    disk_text: str | None
    check: SaveCheck
    disk: DiskState


@attrs.frozen
class EarlySave:
    """What a possible reload replaced: put back if it was a save seen early."""

    text_hash: str
    record_text: str | None
    baseline: list[str]


class DiskTracker:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.baseline_hash: str | None = None
        self.current_hash: str | None = None
        #: The disk text when it differs from the baseline (for "Reload from disk").
        self.current_text: str | None = None
        self.changed_by: Changer | None = None
        self.since = "opened"
        self.stamp: tuple[int, int, int] | None = None
        #: A save is under way (between willSave and didSave): a disk change now is ours.
        self.saving = False
        #: The buffer changed while the disk differed from the baseline (a reload?).
        self.reload_pending = False
        self.save_context: SaveContext | None = None
        #: The disk already differed from the opened text when didOpen was handled: an
        #: unrecorded content there may be this editor's own save seen early.
        self.differed_at_open = False
        #: A reload recognised from a write nobody recorded, seen after the buffer already
        #: held its content: this editor's own save (sent without willSave) looks the
        #: same until its didSave arrives, which then takes the reload back.
        self.early_save: EarlySave | None = None

    def open(self, opened: str, session_start_ns: int) -> str:
        """Fixes the baseline at didOpen and returns the old side of the first record.

        The baseline is the text the editor opened, not whatever the disk holds by the
        time the server reads it: a write landing in between (this editor's own quick
        save, or another writer's) must be judged, not silently absorbed. Only a disk
        file last written before this server started is taken as the baseline when it
        differs from the opened text: the editor restored an unsaved buffer over it.
        """
        # Stamp first: a write landing between the two is then seen by the next look.
        self.stamp = stamp_of(self.path)
        text = read_text(self.path)
        self.current_hash = text_hash(text) if text is not None else None
        opened_hash = text_hash(opened)
        written_since_start = (
            self.stamp is not None and self.stamp[0] >= session_start_ns - CLOCK_SLACK_NS
        )
        if text is None or self.current_hash == opened_hash or not written_since_start:
            self.baseline_hash = self.current_hash
            return text if text is not None else ""
        self.baseline_hash = opened_hash
        self.current_text = text
        self.differed_at_open = True
        return opened

    @property
    def changed(self) -> bool:
        return self.current_hash != self.baseline_hash

    def state(self) -> DiskState | None:
        """What the policy judges, while the disk differs from the baseline."""
        return self.state_now() if self.changed else None

    def state_now(self) -> DiskState:
        return DiskState(self.baseline_hash, self.current_hash, self.changed_by, self.since)

    def look(self, force: bool = False) -> bool:
        """Re-reads the file if its stamp changed (or ``force``); True if its content
        hash differs from what was seen last."""
        stamp = stamp_of(self.path)
        if stamp == self.stamp and not force:
            return False
        return self._seen(stamp, read_text(self.path))

    def read(self) -> str | None:
        """Reads the file now (before a save); returns its text."""
        stamp, text = stamp_of(self.path), read_text(self.path)
        self._seen(stamp, text)
        return text

    def _seen(self, stamp: tuple[int, int, int] | None, text: str | None) -> bool:
        self.stamp = stamp
        digest = text_hash(text) if text is not None else None
        if digest == self.current_hash:
            return False
        self.current_hash = digest
        self.current_text = text if digest != self.baseline_hash else None
        self.changed_by = None
        return True

    def saved(self, text: str) -> None:
        self.differed_at_open = False
        self.baseline_hash = self.current_hash = text_hash(text)
        self.current_text = None
        self.changed_by = None
        self.since = "saved"
        self.stamp = stamp_of(self.path)
        self.saving = False
        self.reload_pending = False

    def reloaded(self) -> None:
        self.differed_at_open = False
        self.baseline_hash = self.current_hash
        self.current_text = None
        self.changed_by = None
        self.since = "reloaded"
        self.reload_pending = False


def read_text(path: Path) -> str | None:
    """A file as an editor shows it (invalid UTF-8 replaced); None when it is absent, or
    is no text the server could track: a FIFO, device or socket (never opened blocking)
    or a file above :data:`MAX_DISK_BYTES`."""
    try:
        return read_regular(path, MAX_DISK_BYTES, follow=True).decode("utf-8-sig", "replace")
    except (FileNotFoundError, NotADirectoryError, UnsafePathError, FileTooLargeError):
        return None


def stamp_of(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def path_of(uri: str) -> Path | None:
    path = path_of_uri(uri)
    return Path(path) if path else None
