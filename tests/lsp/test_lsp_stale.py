"""Stale buffers: the file changed on disk under an open, edited document.

With VS Code's capabilities the client reports file changes (the test sends them as VS
Code's watcher would); with Neovim's the server polls open documents. Two server
processes on one workspace stand for two editors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsp_harness import Editor, meta, stale_of, start_editor, stop_editor, uri_of
from lsprotocol import types
from test_lsp_actions import apply_text_edits

from intent_ls.common.hashing import text_hash
from tests.support import records

JWT = "src/auth/jwt.py"


def watched(editor: Editor, path: Path) -> None:
    """What VS Code's watcher reports for a file another process wrote (Neovim's server
    polls instead)."""
    if editor.registrations:
        editor.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=uri_of(path), type=types.FileChangeType.Changed)]
            )
        )


async def dirty_then_changed_on_disk(editor: Editor) -> tuple[str, str, types.Diagnostic]:
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    editor.insert(uri, 0, 0, "# mine\n")
    await editor.settled()  # the server read the disk at open before it changes
    theirs = (editor.root / JWT).read_text().replace('"""JSON Web', '"""Their JSON Web')
    editor.write_file(editor.root / JWT, theirs)
    diags = await editor.wait_diagnostics(JWT, lambda d: bool(stale_of(d)), "stale-file")
    [diag] = stale_of(diags)
    return uri, theirs, diag


async def test_a_change_on_disk_makes_the_edited_buffer_stale(editor: Editor) -> None:
    uri, theirs, diag = await dirty_then_changed_on_disk(editor)
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.source == "intent-ls"
    assert diag.message == f"{JWT} changed on disk since you opened it"
    assert diag.range.start.line == 0
    actions = await editor.code_actions(uri, [diag])
    titles = [a.title for a in actions]
    assert titles[:2] == ["Reload from disk", "Keep my version"]
    reload = actions[0]
    assert reload.is_preferred
    edits = editor.edits_in(reload.edit, uri)
    # The editor applies the edit: the buffer becomes the disk content.
    reloaded = apply_text_edits(editor.texts[uri], list(edits), editor.codec)
    assert reloaded == theirs
    editor.set_text(uri, reloaded)
    await editor.wait_diagnostics(JWT, lambda d: d == [], "reloading clears everything")
    # Their lines are the new baseline, not edits of mine: a save records nothing.
    since = editor.recorded_count()
    await editor.save(uri)
    editor.insert(uri, 1, 0, "# after\n")
    await editor.save(uri)
    [note] = await editor.wait_recorded(since)
    [record] = records(editor.root)
    assert record["id"] == note["id"]
    assert meta(record)["before_hash"] == text_hash(theirs)
    assert record["files"][0]["conversations"][0]["ranges"][0]["start_line"] == 2


RUNS_RELOAD = {"intentLs": {"clientCommands": ["intent.reloadFromDisk"]}}


async def test_a_client_that_reverts_itself_gets_the_reload_command(
    client_name: str, workspace: Path
) -> None:
    """Emacs's clients revert the buffer themselves (an edit would make Emacs ask, revert,
    and refuse the edit for the old version): they get a command and no edit."""
    editor = await start_editor(client_name, [workspace], experimental=RUNS_RELOAD)
    try:
        uri, theirs, diag = await dirty_then_changed_on_disk(editor)
        actions = await editor.code_actions(uri, [diag])
        reload = actions[0]
        assert (reload.title, reload.is_preferred, reload.edit) == ("Reload from disk", True, None)
        assert reload.command is not None
        assert reload.command.command == "intent.reloadFromDisk"
        assert list(reload.command.arguments or []) == [uri]
        assert list(reload.diagnostics or []) == [diag]
        # eglot's revert: the document is closed and opened again with the disk text.
        editor.close(uri)
        editor.open(JWT)
        assert editor.texts[uri] == theirs
        await editor.wait_diagnostics(JWT, lambda d: d == [], "the revert clears everything")
        # lsp-mode's revert: a full-text change to the disk text.
        editor.insert(uri, 0, 0, "# mine\n")
        again = theirs.replace("Their JSON Web", "Again their JSON Web")
        editor.write_file(editor.root / JWT, again)
        diags = await editor.wait_diagnostics(JWT, lambda d: bool(stale_of(d)), "stale again")
        [diag] = stale_of(diags)
        [reload, *_] = await editor.code_actions(uri, [diag])
        assert reload.command is not None and reload.edit is None
        editor.set_text(uri, again)
        await editor.wait_diagnostics(JWT, lambda d: d == [], "the revert clears everything")
    finally:
        await stop_editor(editor)


@pytest.mark.parametrize(
    "experimental",
    [
        {"intentLs": {"clientCommands": "intent.reloadFromDisk"}},
        {"intentLs": ["intent.reloadFromDisk"]},
        {"intentLs": {"clientCommands": ["intent.reload", 3, None]}},
        ["intentLs"],
    ],
)
async def test_only_a_list_naming_the_command_announces_it(
    experimental: Any, workspace: Path
) -> None:
    """A string (``in`` would match a substring), another shape or other commands
    announce nothing: the client gets the edit. (Not a client-specific matter: one
    client's capabilities.)"""
    editor = await start_editor("neovim", [workspace], experimental=experimental)
    try:
        uri, _, diag = await dirty_then_changed_on_disk(editor)
        [reload, *_] = await editor.code_actions(uri, [diag])
        assert reload.title == "Reload from disk"
        assert reload.edit is not None and reload.command is None
    finally:
        await stop_editor(editor)


async def test_keep_my_version_is_an_approval_on_the_ledger(editor: Editor) -> None:
    uri, theirs, diag = await dirty_then_changed_on_disk(editor)
    actions = await editor.code_actions(uri, [diag])
    keep = next(a for a in actions if a.title == "Keep my version")
    since = editor.recorded_count()
    result = await editor.run_action(keep)
    assert result["code"] == "stale-file"
    assert result["approved"][0]["content_hash"] == text_hash(theirs)
    await editor.wait_diagnostics(JWT, lambda d: not stale_of(d), "approval clears it")
    [approval] = records(editor.root)
    assert meta(approval)["kind"] == "approval"
    assert meta(approval)["approvals"][0]["verdict_code"] == "stale-file"
    # Saving now overwrites their version without a question; the record says so.
    await editor.save(uri)
    await editor.wait_recorded(since, count=2)
    _, saved = records(editor.root)
    [verdict] = meta(saved)["verdicts"]
    assert verdict["code"] == "stale-file"
    assert verdict["details"]["disk_hash"] == text_hash(theirs)
    assert [a["verdict_code"] for a in meta(saved)["approvals"]] == ["stale-file"]
    assert meta(saved)["before_hash"] == text_hash(theirs)
    assert editor.message_requests == []


async def two_editors(client_name: str, workspace: Path) -> tuple[Editor, Editor]:
    first = await start_editor(client_name, [workspace])
    second = await start_editor(client_name, [workspace])
    return first, second


async def test_two_servers_the_second_save_is_detected(client_name: str, workspace: Path) -> None:
    first, second = await two_editors(client_name, workspace)
    try:
        for ed in (first, second):
            await ed.execute("intent.select", "INT-001")
        a = first.open(JWT)
        b = second.open(JWT)
        await second.settled()
        original = second.texts[b]
        first.insert(a, 2, 0, "# first editor\n")
        await first.save(a)
        await first.wait_recorded(0)
        theirs = first.texts[a]
        second.insert(b, 10, 0, "# second editor\n")
        second.pick = None  # the question after the save is dismissed
        await second.save(b)
        await second.wait_for(lambda: second.message_requests, "the question after the save")
        [question] = second.message_requests
        assert "you saved over a newer version" in question.message
        assert "by unknown for INT-001 at" in question.message
        assert [x.title for x in question.actions or []] == [
            "Keep my version",
            "Restore the disk version",
        ]
        await second.wait_recorded(0)
        _, saved = records(workspace)
        m = meta(saved)
        [verdict] = m["verdicts"]
        assert verdict["code"] == "stale-file"
        details = verdict["details"]
        assert details["baseline_hash"] == text_hash(original)
        assert details["disk_hash"] == text_hash(theirs)
        assert details["buffer_hash"] == text_hash(second.texts[b])
        assert details["changed_by"]["intent_id"] == "INT-001"
        assert m["approvals"] == []
        assert m["before_hash"] == text_hash(theirs)  # the record is against what it overwrote
        # Unanswered, the verdict stays: shown from the ledger, with "Keep my version".
        diags = await second.wait_diagnostics(
            JWT, lambda d: any("not resolved" in x.message for x in stale_of(d)), "still stale"
        )
        [diag] = stale_of(diags)
        assert "not resolved" in diag.message
        actions = await second.code_actions(b, [diag])
        keep = next(x for x in actions if x.title == "Keep my version")
        await second.run_action(keep)
        await second.wait_diagnostics(JWT, lambda d: not stale_of(d), "approved")
    finally:
        await stop_editor(second)
        await stop_editor(first)


async def test_restore_the_overwritten_version(client_name: str, workspace: Path) -> None:
    first, second = await two_editors(client_name, workspace)
    try:
        a, b = first.open(JWT), second.open(JWT)
        await second.settled()
        first.insert(a, 2, 0, "# first editor\n")
        await first.save(a)
        await first.wait_recorded(0)
        second.insert(b, 10, 0, "# second editor\n")
        second.pick = "Restore the disk version"
        await second.save(b)
        await second.wait_for(lambda: second.applied_edits, "the restoring edit")
        [edit] = second.applied_edits
        edits = second.edits_in(edit, b)
        assert apply_text_edits(second.texts[b], list(edits), second.codec) == first.texts[a]
    finally:
        await stop_editor(second)
        await stop_editor(first)


async def test_the_stale_warning_names_who_changed_the_file(
    client_name: str, workspace: Path
) -> None:
    first, second = await two_editors(client_name, workspace)
    try:
        await first.execute("intent.select", "INT-001")
        a, b = first.open(JWT), second.open(JWT)
        second.insert(b, 10, 0, "# unsaved\n")
        await second.settled()
        first.insert(a, 2, 0, "# first editor\n")
        await first.save(a)
        await first.wait_recorded(0)
        watched(second, workspace / JWT)
        # A poller may see the write before the record is on the ledger: the warning
        # names the writer as soon as the ledger knows it.
        diags = await second.wait_diagnostics(
            JWT, lambda d: any("(by " in x.message for x in stale_of(d)), "stale, by whom"
        )
        [diag] = stale_of(diags)
        assert diag.message.startswith(f"{JWT} changed on disk (by unknown for INT-001 at 20")
        assert diag.message.endswith("Z) since you opened it")
    finally:
        await stop_editor(second)
        await stop_editor(first)


async def test_an_unedited_buffer_that_the_editor_reloads_is_not_stale(editor: Editor) -> None:
    uri = editor.open(JWT)
    await editor.settled()
    theirs = "# rewritten elsewhere\n" + editor.texts[uri]
    editor.write_file(editor.root / JWT, theirs)
    editor.set_text(uri, theirs)  # the editor reloads the clean buffer
    await editor.execute("intent.list")
    await editor.wait_for(
        lambda: editor.history.get(uri) and editor.diagnostics(JWT) == [], "no diagnostics"
    )
    editor.insert(uri, 1, 0, "# mine\n")
    diags = await editor.wait_diagnostics(JWT, bool, "my edit only")
    assert [(d.code, d.range.start.line) for d in diags] == [("no-active-intent", 1)]
