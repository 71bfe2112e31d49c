"""Stale buffers: the file changed on disk under an open document (optimistic locking).

Per open governed document a :class:`~intent_ls.server.disk.DiskTracker` remembers the
disk content hash of the buffer's **baseline**: read at open, and set to the buffer's
hash after each save. The disk is looked at again

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
content; for a client that reverts buffers itself, its ``intent.reloadFromDisk`` command,
see :mod:`intent_ls.server.client_commands`) and **Keep my version** (an approval,
recorded in the ledger, keyed on the disk content it overrides).

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

from lsprotocol import types
from pygls.capabilities import get_capability

from intent_ls.common.hashing import text_hash
from intent_ls.policy.approvals import ApprovalSet
from intent_ls.policy.judge import Verdict
from intent_ls.policy.rules import stale_file
from intent_ls.policy.rules.stale_file import check_save, stale_verdict
from intent_ls.policy.stale import Changer
from intent_ls.server.approvals import approve_verdict
from intent_ls.server.arguments import approve_action
from intent_ls.server.client_commands import RELOAD_FROM_DISK, runs_itself
from intent_ls.server.disk import DiskTracker, EarlySave, SaveContext
from intent_ls.server.documents import TrackedDocument
from intent_ls.server.edits import document_edit, may_revert_while_applying
from intent_ls.server.folders import Folder
from intent_ls.server.hub import Hub

#: "Keep my version": the stale rule's approval, as its quick fix and the save prompt name it.
KEEP_TITLE = stale_file.RULE.quick_fix
RELOAD_TITLE = "Reload from disk"
RESTORE_TITLE = "Restore the disk version"


# -- events -----------------------------------------------------------------------------


def disk_changed(ls: Hub, doc: TrackedDocument, force: bool = False) -> None:
    """A watcher event or the poller: re-read, learn who wrote it, re-analyse."""
    disk = doc.disk
    if disk is None or not disk.look(force):
        return
    ls.spawn(_learn_changer(ls, doc, disk))


def disk_changed_at_open(ls: Hub, doc: TrackedDocument) -> None:
    """The disk already differed from the opened text: learn who wrote it, as for a
    change noticed later."""
    disk = doc.disk
    if disk is not None:
        ls.spawn(_learn_changer(ls, doc, disk))


async def _learn_changer(ls: Hub, doc: TrackedDocument, disk: DiskTracker) -> None:
    digest = disk.current_hash
    if disk.changed and doc.folder is not None and doc.rel is not None:
        changer = await ls.workers.query(ls.recorder.follow(doc.folder).changer, doc.rel, digest)
        if disk.current_hash == digest:
            disk.changed_by = changer
    _maybe_reloaded(ls, doc, from_watch=True)
    ls.analyzer.schedule(doc, delay=0)


def ledger_grew(ls: Hub, folder: Folder) -> None:
    """New records may name who wrote a file whose change was seen before its record."""
    for doc in list(ls.documents.values()):
        disk = doc.disk
        if doc.folder is folder and disk is not None and disk.changed and disk.changed_by is None:
            ls.spawn(_learn_changer(ls, doc, disk))


def buffer_changed(doc: TrackedDocument) -> None:
    disk = doc.disk
    if disk is None:
        return
    disk.early_save = None  # the buffer moved on without a save: it was a reload
    if disk.changed:
        disk.reload_pending = True


def take_back_early_save(doc: TrackedDocument, text: str) -> None:
    """At didSave: a reload recognised from the disk holding exactly this text was the
    save's own write, seen before its didSave. The record and the governance judgement
    are then against what the buffer was judged against before that write."""
    disk = doc.disk
    if disk is None or disk.early_save is None:
        return
    early, disk.early_save = disk.early_save, None
    if early.text_hash == text_hash(text):
        doc.record_text = early.record_text
        doc.restore_baseline(early.baseline)


def _maybe_reloaded(ls: Hub, doc: TrackedDocument, from_watch: bool) -> bool:
    """The buffer now holds the new disk content: the editor reloaded it."""
    disk = doc.disk
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
    ls.publish(doc)
    return True


def check_reload(ls: Hub, doc: TrackedDocument) -> None:
    """After an analysis: a pending reload is recognised once the texts agree."""
    disk = doc.disk
    if disk is not None and disk.reload_pending:
        _maybe_reloaded(ls, doc, from_watch=False)


def _announces_saves(ls: Hub) -> bool:
    caps = ls.client_capabilities
    return bool(
        get_capability(caps, "text_document.synchronization.will_save_wait_until", False)
        or get_capability(caps, "text_document.synchronization.will_save", False)
    )


async def will_save(ls: Hub, doc: TrackedDocument, approvals: ApprovalSet) -> None:
    """Reads the disk before the editor writes over it and decides what the save is:
    the client waits for this answer, so the read sees the file before the write."""
    disk = doc.disk
    if disk is None or doc.rel is None or doc.folder is None:
        return
    disk.saving = True
    text = ls.workspace.get_text_document(doc.uri).source
    on_disk = disk.read()
    if disk.changed and disk.changed_by is None:
        digest = disk.current_hash
        changer = await ls.workers.query(ls.recorder.follow(doc.folder).changer, doc.rel, digest)
        if disk.current_hash == digest:
            disk.changed_by = changer
    state = disk.state_now()
    disk.save_context = SaveContext(on_disk, check_save(doc.rel, state, text, approvals), state)


def save_context(
    ls: Hub, doc: TrackedDocument, text: str, approvals: ApprovalSet
) -> SaveContext | None:
    """At didSave: what willSave found, or (clients without it) the last known disk."""
    disk = doc.disk
    if disk is None or doc.rel is None:
        return None
    context, disk.save_context = disk.save_context, None
    if context is None and disk.changed and not _own_write_in_progress(disk, text):
        state = disk.state_now()
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
    stale = context.check.stale._replace(changed_by=changer or context.check.stale.changed_by)
    return stale_verdict(stale)


async def ask_after_save(
    ls: Hub, doc: TrackedDocument, verdict: Verdict, overwritten: str | None
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
        await approve_verdict(ls, doc, verdict)
    elif answer.title == RESTORE_TITLE and overwritten is not None:
        await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(
                edit=replace_buffer(ls, doc, overwritten), label=RESTORE_TITLE
            )
        )


# -- quick fixes ------------------------------------------------------------------------


def _end_of(ls: Hub, lines: list[str]) -> types.Position:
    """The position just past the last character of ``lines`` (with their endings)."""
    if not lines:
        return types.Position(line=0, character=0)
    last = lines[-1]
    body = last.rstrip("\r\n")
    if body != last:
        return types.Position(line=len(lines), character=0)
    return types.Position(line=len(lines) - 1, character=ls.codec.client_num_units(body))


def replace_buffer(ls: Hub, doc: TrackedDocument, text: str) -> types.WorkspaceEdit:
    """The buffer as last sent becomes ``text``; pinned to that version."""
    end = _end_of(ls, doc.lines)
    edit = types.TextEdit(range=types.Range(start=types.Position(0, 0), end=end), new_text=text)
    return document_edit(ls, doc.uri, doc.version, [edit])


def reload_buffer(ls: Hub, doc: TrackedDocument, disk_text: str) -> types.WorkspaceEdit:
    """The quick fix "Reload from disk": the buffer becomes ``disk_text``.

    Pinned to the buffer's version, so a client refuses it once the buffer moved on,
    except in a client that may revert the buffer while applying it
    (:func:`~intent_ls.server.edits.may_revert_while_applying`): Emacs asks "changed on
    disk; discard your edits?" first, and yes re-opens the document (eglot: at version 0),
    so an edit pinned to the version it was computed for is refused (``Edits on 'x.py'
    require version 1, you have 0``) although the buffer then holds what it asked for.
    There the edit must be right for both texts the buffer can hold when it arrives: it
    replaces from the start to the later of the two texts' ends (the buffer as last sent,
    the disk text; for the shorter one that end lies past its last line or character,
    which clients clamp: the LSP spec says so of characters, and eglot, lsp-mode, VS Code,
    Neovim and Helix do it for lines), and its version is null, which the spec defines as
    "the content on disk is the master": what this edit restores."""
    if not may_revert_while_applying(ls):
        return replace_buffer(ls, doc, disk_text)
    end = max(
        _end_of(ls, doc.lines),
        _end_of(ls, disk_text.splitlines(keepends=True)),
        key=lambda p: (p.line, p.character),
    )
    edit = types.TextEdit(
        range=types.Range(start=types.Position(0, 0), end=end), new_text=disk_text
    )
    return document_edit(ls, doc.uri, None, [edit])


def fixes(ls: Hub, doc: TrackedDocument, diag: types.Diagnostic) -> list[types.CodeAction]:
    """Quick fixes of a ``stale-file`` diagnostic, from the disk as it is now: the
    poller may have read the file between another writer's truncation and its write."""
    actions = []
    disk_changed(ls, doc)
    disk = doc.disk
    if disk is not None and disk.changed and disk.current_text is not None:
        reload = types.CodeAction(
            title=RELOAD_TITLE,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diag],
            is_preferred=True,
        )
        if runs_itself(ls.client_capabilities, RELOAD_FROM_DISK):
            reload.command = types.Command(
                title=RELOAD_TITLE, command=RELOAD_FROM_DISK, arguments=[doc.uri]
            )
        else:
            reload.edit = reload_buffer(ls, doc, disk.current_text)
        actions.append(reload)
    actions.append(approve_action(KEEP_TITLE, doc.uri, diag, stale_file.CODE))
    return actions


def poll(ls: Hub) -> None:
    """The poller's tick for open documents (clients that do not watch files)."""
    for doc in list(ls.documents.values()):
        if doc.disk is not None:
            disk_changed(ls, doc)
