"""Saves and disk writes that race the server: fast scripted clients, format-on-save,
agents driving an editor. Every save of a changed governed document gives exactly one
record, and the disk state an open buffer is judged against is the text it opened."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

from lsp_harness import Editor, meta, records, stale_of, start_editor, stop_editor
from lsprotocol import types

from intent_ls.common.hashing import text_hash

JWT = "src/auth/jwt.py"


def did_save(editor: Editor, uri: str) -> None:
    editor.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


async def test_a_write_that_lands_before_the_server_reads_the_open_is_recorded(
    editor: Editor,
) -> None:
    """The editor opened v1; its own save of v2 reached the disk before the server
    handled didOpen. The record is v1 -> v2, not "nothing changed"."""
    path = editor.root / JWT
    opened = path.read_text(encoding="utf-8")
    saved = "# saved at once\n" + opened
    path.write_text(saved, encoding="utf-8")
    uri = editor.open(JWT, text=opened)
    editor.insert(uri, 0, 0, "# saved at once\n")
    assert editor.texts[uri] == saved
    did_save(editor, uri)
    [note] = await editor.wait_recorded(0)
    [record] = records(editor.root)
    assert note["id"] == record["id"]
    assert meta(record)["before_hash"] == text_hash(opened)
    assert meta(record)["after_hash"] == text_hash(saved)


async def test_an_analysis_between_change_and_save_does_not_swallow_the_save(
    editor: Editor,
) -> None:
    """As above, but the server analyses the edited buffer (equal to the disk by then)
    before didSave arrives: that is the editor's own write seen early, not a reload."""
    path = editor.root / JWT
    opened = path.read_text(encoding="utf-8")
    saved = "# saved at once\n" + opened
    path.write_text(saved, encoding="utf-8")
    uri = editor.open(JWT, text=opened)
    await editor.wait_diagnostics(JWT, lambda d: bool(stale_of(d)), "the disk differs")
    editor.insert(uri, 0, 0, "# saved at once\n")
    await editor.wait_diagnostics(JWT, lambda d: not stale_of(d), "buffer equals the disk")
    await editor.execute("intent.list")
    did_save(editor, uri)
    await editor.wait_recorded(0)
    [record] = records(editor.root)
    assert meta(record)["before_hash"] == text_hash(opened)
    assert meta(record)["after_hash"] == text_hash(saved)


async def test_a_write_just_after_open_makes_the_edited_buffer_stale(editor: Editor) -> None:
    """Editor B saves a change before editor A's server has read the file A opened: A's
    buffer is judged against what A opened, so it is stale."""
    path = editor.root / JWT
    opened = path.read_text(encoding="utf-8")
    theirs = opened.replace('"""JSON Web', '"""Their JSON Web')
    assert theirs != opened
    path.write_text(theirs, encoding="utf-8")  # B's write, before A's didOpen is read
    uri = editor.open(JWT, text=opened)
    editor.write_file(path, theirs)  # the watcher event, for clients that watch
    editor.insert(uri, 3, 0, "# mine\n")
    diags = await editor.wait_diagnostics(JWT, lambda d: bool(stale_of(d)), "stale-file")
    [diag] = stale_of(diags)
    assert diag.message == f"{JWT} changed on disk since you opened it"


async def test_many_servers_many_fast_saves_give_exact_counts(
    client_name: str, workspace: Path
) -> None:
    """Three servers, each saving its own file 15 times, each save sent as soon as the
    previous one is recorded, the first racing the open: 45 records, 15 per file, each
    chained on the one before."""
    names = ["src/auth/a.py", "src/auth/b.py", "src/auth/c.py"]
    for name in names:
        (workspace / name).write_text("x = 0\n", encoding="utf-8")
    editors = [await start_editor(client_name, [workspace]) for _ in names]
    saves = 15

    async def drive(editor: Editor, rel: str) -> None:
        await editor.execute("intent.select", "INT-001")
        # The first save races the open: its write is on disk before didOpen is read.
        (workspace / rel).write_text("x = 0\nx = 1\n", encoding="utf-8")
        uri = editor.open(rel, text="x = 0\n")
        editor.insert(uri, 1, 0, "x = 1\n")
        did_save(editor, uri)
        for n in range(1, saves):
            await editor.wait_recorded(0, count=n)  # the previous save was handled
            editor.insert(uri, n + 1, 0, f"x = {n + 1}\n")
            await editor.save(uri, will_save=False)
        await editor.wait_recorded(0, count=saves)

    try:
        await asyncio.gather(*(drive(e, n) for e, n in zip(editors, names, strict=True)))
        found = records(workspace)
        for editor, name in zip(editors, names, strict=True):
            mine = [r for r in found if r["files"][0]["path"] == name]
            assert len(mine) == saves, name
            assert len(editor.recorded) == saves
            for before, after in itertools.pairwise(mine):
                assert meta(after)["before_hash"] == meta(before)["after_hash"]
        assert len(found) == saves * len(names)
    finally:
        for editor in editors:
            await stop_editor(editor)


async def test_a_save_seen_on_disk_before_its_did_save_is_recorded(editor: Editor) -> None:
    """A client that skips willSave for a save (a scripted client, an agent driving the
    editor): the server sees the write (the disk now equals the edited buffer) and looks
    up who wrote it before didSave arrives. That is the save landing early, not the
    editor reloading another writer's content: it is recorded, against the opened text."""
    path = editor.root / JWT
    opened = path.read_text(encoding="utf-8")
    uri = editor.open(JWT, text=opened)
    editor.insert(uri, 0, 0, "# saved without willSave\n")
    await editor.settled()
    path.write_text(editor.texts[uri], encoding="utf-8")
    editor.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Changed)]
        )
    )
    # Answered on the index thread after the look-up of who wrote the file, so the
    # server has taken its view of the write before it reads the didSave.
    await editor.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    did_save(editor, uri)
    [note] = await editor.wait_recorded(0)
    [record] = records(editor.root)
    assert note["id"] == record["id"]
    assert meta(record)["before_hash"] == text_hash(opened)
    assert meta(record)["after_hash"] == text_hash(editor.texts[uri])
