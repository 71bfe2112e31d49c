"""Stale buffers: the file changed on disk under an open document (optimistic locking).

Per open governed document a :class:`DiskTracker` remembers the disk content hash of
the buffer's **baseline**: read at open, and set to the buffer's hash after each save.
The disk is looked at again

- on ``workspace/didChangeWatchedFiles`` for the document (the server registers a
  watcher for every file when the client allows dynamic registration), or, for clients
  that do not watch for the server, when the poller sees the file's (mtime, size, inode)
  change;
- on ``textDocument/willSaveWaitUntil``, just before the editor writes (the client waits
  for the answer, so nothing is written yet): this catches another editor's save that
  no watcher reported in time — two servers on one workspace.

When the disk no longer holds the baseline and the buffer differs from what it holds,
the policy's ``stale-file`` verdict (Warning) names who wrote it when the ledger knows.
Quick fixes: **Reload from disk** (a WorkspaceEdit replacing the buffer with the disk
content) and **Keep my version** (an approval, recorded in the ledger, keyed on the disk
content it overrides).

**Saving a stale buffer** is not blocked (willSaveWaitUntil cannot veto a save, and a
dialog there would outlive the editor's save timeout). The save's trace record carries
the ``stale-file`` verdict with the baseline, disk and buffer hashes; then, unless a
"Keep my version" approval covers it, the server asks (``window/showMessageRequest``):
*Keep my version* records the approval, *Restore the disk version* puts the overwritten
content (read at willSave) back into the buffer. Unanswered, the verdict stays open and
is shown from the ledger until approved.

A buffer that becomes equal to the disk content (the editor reloaded it) takes the disk
content as its new baseline, so another writer's lines are not flagged as your edits.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from lsprotocol import types
from pygls.capabilities import get_capability

from intent_ls.common.hashing import text_hash
from intent_ls.common.uris import path_of_uri
from intent_ls.policy.approvals import ApprovalSet
from intent_ls.policy.judge import Verdict, stale_verdict
from intent_ls.policy.stale import Changer, DiskState, SaveCheck, check_save
from intent_ls.policy.verdicts import STALE_FILE
from intent_ls.server.edits import document_edit
from intent_ls.server.ledger import read_text, stamp_of, trace_of

if TYPE_CHECKING:
    from intent_ls.server.documents import TrackedDocument
    from intent_ls.server.folders import Folder
    from intent_ls.server.server import IntentLanguageServer

#: How far a file system's coarse clock may lag ``time.time_ns()`` (mtime comparisons).
CLOCK_SLACK_NS = 1_000_000_000
KEEP_TITLE = "Keep my version"
RELOAD_TITLE = "Reload from disk"
RESTORE_TITLE = "Restore the disk version"


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
        if not self.changed:
            return None
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


def tracker(doc: TrackedDocument) -> DiskTracker | None:
    return doc.disk  # type: ignore[no-any-return]


# -- events -----------------------------------------------------------------------------


def disk_changed(ls: IntentLanguageServer, doc: TrackedDocument, force: bool = False) -> None:
    """A watcher event or the poller: re-read, learn who wrote it, re-analyse."""
    disk = tracker(doc)
    if disk is None or not disk.look(force):
        return
    ls.spawn(_learn_changer(ls, doc, disk))


def disk_changed_at_open(ls: IntentLanguageServer, doc: TrackedDocument) -> None:
    """The disk already differed from the opened text: learn who wrote it, as for a
    change noticed later."""
    disk = tracker(doc)
    if disk is not None:
        ls.spawn(_learn_changer(ls, doc, disk))


async def _learn_changer(ls: IntentLanguageServer, doc: TrackedDocument, disk: DiskTracker) -> None:
    digest = disk.current_hash
    if disk.changed and doc.folder is not None and doc.rel is not None:
        changer = await ls.workers.query(trace_of(doc.folder).changer, doc.rel, digest)
        if disk.current_hash == digest:
            disk.changed_by = changer
    _maybe_reloaded(ls, doc, from_watch=True)
    ls.analyzer.schedule(doc, delay=0)


def ledger_grew(ls: IntentLanguageServer, folder: Folder) -> None:
    """New records may name who wrote a file whose change was seen before its record."""
    for doc in list(ls.documents.values()):
        disk = tracker(doc)
        if doc.folder is folder and disk is not None and disk.changed and disk.changed_by is None:
            ls.spawn(_learn_changer(ls, doc, disk))


def buffer_changed(doc: TrackedDocument) -> None:
    disk = tracker(doc)
    if disk is None:
        return
    disk.early_save = None  # the buffer moved on without a save: it was a reload
    if disk.changed:
        disk.reload_pending = True


def take_back_early_save(doc: TrackedDocument, text: str) -> None:
    """At didSave: a reload recognised from the disk holding exactly this text was the
    save's own write, seen before its didSave. The record and the governance judgement
    are then against what the buffer was judged against before that write."""
    disk = tracker(doc)
    if disk is None or disk.early_save is None:
        return
    early, disk.early_save = disk.early_save, None
    if early.text_hash == text_hash(text):
        doc.record_text = early.record_text
        doc.restore_baseline(early.baseline)


def _maybe_reloaded(ls: IntentLanguageServer, doc: TrackedDocument, from_watch: bool) -> bool:
    """The buffer now holds the new disk content: the editor reloaded it."""
    disk = tracker(doc)
    if disk is None or not disk.changed or disk.current_hash is None:
        return False
    if from_watch and (disk.saving or not _announces_saves(ls)) and not disk.reload_pending:
        return False  # maybe our own save landing before didSave: leave it to didSave
    text = ls.workspace.get_text_document(doc.uri).source
    if text_hash(text) != disk.current_hash:
        return False
    # Content that was on disk before the server read the open and that nobody recorded
    # is most likely this editor's own save landing before its didSave: that save must
    # still be recorded against the opened text.
    own_early_write = disk.differed_at_open and disk.changed_by is None
    # The buffer held this content before the disk did, and nobody recorded writing it:
    # a reload that beat the watcher, or this editor's save without willSave.
    early = None
    if from_watch and not disk.reload_pending and disk.changed_by is None:
        early = EarlySave(text_hash(text), doc.record_text, list(doc.baseline))
    disk.reloaded()
    doc.rebase()
    disk.early_save = early
    if not own_early_write:
        doc.record_text = text  # another writer's content, recorded by them (or not at all)
    ls.evaluate(doc)
    return True


def check_reload(ls: IntentLanguageServer, doc: TrackedDocument) -> None:
    """After an analysis: a pending reload is recognised once the texts agree."""
    disk = tracker(doc)
    if disk is not None and disk.reload_pending:
        _maybe_reloaded(ls, doc, from_watch=False)


def _announces_saves(ls: IntentLanguageServer) -> bool:
    caps = ls.client_capabilities
    return bool(
        get_capability(caps, "text_document.synchronization.will_save_wait_until", False)
        or get_capability(caps, "text_document.synchronization.will_save", False)
    )


async def will_save(ls: IntentLanguageServer, doc: TrackedDocument, approvals: ApprovalSet) -> None:
    """Reads the disk before the editor writes over it and decides what the save is:
    the client waits for this answer, so the read sees the file before the write."""
    disk = tracker(doc)
    if disk is None or doc.rel is None or doc.folder is None:
        return
    disk.saving = True
    text = ls.workspace.get_text_document(doc.uri).source
    on_disk = disk.read()
    if disk.changed and disk.changed_by is None:
        digest = disk.current_hash
        changer = await ls.workers.query(trace_of(doc.folder).changer, doc.rel, digest)
        if disk.current_hash == digest:
            disk.changed_by = changer
    state = DiskState(disk.baseline_hash, disk.current_hash, disk.changed_by, disk.since)
    disk.save_context = SaveContext(on_disk, check_save(doc.rel, state, text, approvals), state)


def save_context(
    ls: IntentLanguageServer, doc: TrackedDocument, text: str, approvals: ApprovalSet
) -> SaveContext | None:
    """At didSave: what willSave found, or (clients without it) the last known disk."""
    disk = tracker(doc)
    if disk is None or doc.rel is None:
        return None
    context, disk.save_context = disk.save_context, None
    if context is None and disk.changed and not _own_write_in_progress(disk, text):
        state = DiskState(disk.baseline_hash, disk.current_hash, disk.changed_by, disk.since)
        context = SaveContext(disk.current_text, check_save(doc.rel, state, text, approvals), state)
    return context


def _own_write_in_progress(disk: DiskTracker, text: str) -> bool:
    """Without willSave, the last disk content seen may be this very save caught mid-way
    (editors truncate, then write): a proper prefix of the saved text is taken as that,
    not as another writer's content the save overwrote."""
    seen = disk.current_text
    return seen is not None and len(seen) < len(text) and text.startswith(seen)


def stale_of(context: SaveContext | None, changer: Changer | None) -> Verdict | None:
    """The save's stale-file verdict (approved or not), naming who wrote the disk."""
    if context is None or context.check.stale is None:
        return None
    stale = attrs.evolve(context.check.stale, changed_by=changer or context.check.stale.changed_by)
    return stale_verdict(stale)


async def ask_after_save(
    ls: IntentLanguageServer, doc: TrackedDocument, verdict: Verdict, overwritten: str | None
) -> None:
    """The save wrote over someone else's content: keep it (approval) or restore theirs."""
    if not get_capability(ls.client_capabilities, "window.show_message", None):
        ls.show(
            f"intent-ls: you saved over a newer version: {verdict.message}",
            types.MessageType.Warning,
        )
        return
    actions = [KEEP_TITLE]
    if overwritten is not None and get_capability(
        ls.client_capabilities, "workspace.apply_edit", False
    ):
        actions.append(RESTORE_TITLE)
    answer = await ls.window_show_message_request_async(
        types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=f"intent-ls: you saved over a newer version: {verdict.message}. "
            "Keep your version, or restore the one you overwrote?",
            actions=[types.MessageActionItem(title=t) for t in actions],
        )
    )
    if answer is None or ls.documents.get(doc.uri) is not doc:
        return
    if answer.title == KEEP_TITLE:
        from intent_ls.server.approvals import approve_verdict

        await approve_verdict(ls, doc, verdict)
    elif answer.title == RESTORE_TITLE and overwritten is not None:
        await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(
                edit=replace_buffer(ls, doc, overwritten), label=RESTORE_TITLE
            )
        )


# -- quick fixes ------------------------------------------------------------------------


def replace_buffer(
    ls: IntentLanguageServer, doc: TrackedDocument, text: str
) -> types.WorkspaceEdit:
    lines = doc.lines
    if lines:
        last = lines[-1]
        body = last.rstrip("\r\n")
        end = (
            types.Position(line=len(lines), character=0)
            if body != last
            else types.Position(line=len(lines) - 1, character=ls.codec.client_num_units(body))
        )
    else:
        end = types.Position(line=0, character=0)
    edit = types.TextEdit(range=types.Range(start=types.Position(0, 0), end=end), new_text=text)
    return document_edit(ls, doc.uri, doc.version, [edit])


def fixes(
    ls: IntentLanguageServer, doc: TrackedDocument, diag: types.Diagnostic
) -> list[types.CodeAction]:
    """Quick fixes of a ``stale-file`` diagnostic."""
    actions = []
    disk = tracker(doc)
    if disk is not None and disk.changed and disk.current_text is not None:
        actions.append(
            types.CodeAction(
                title=RELOAD_TITLE,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=True,
                edit=replace_buffer(ls, doc, disk.current_text),
            )
        )
    actions.append(
        types.CodeAction(
            title=KEEP_TITLE,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diag],
            command=types.Command(
                title=KEEP_TITLE,
                command="intent.approve",
                arguments=[doc.uri, _range_json(diag.range), STALE_FILE],
            ),
        )
    )
    return actions


def _range_json(r: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def poll(ls: IntentLanguageServer) -> None:
    """The poller's tick for open documents (clients that do not watch files)."""
    for doc in list(ls.documents.values()):
        if tracker(doc) is not None:
            disk_changed(ls, doc)


def path_of(uri: str) -> Path | None:
    path = path_of_uri(uri)
    return Path(path) if path else None
