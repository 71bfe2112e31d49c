"""A save's record survives the server being killed (SIGKILL) before it was appended:
the save is journalled when it arrives and replayed by the next server on the workspace."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from lsp_harness import LEDGER, Editor, records, start_editor

from intent_ls.common.hashing import text_hash
from intent_ls.ledger.verify import verify_ledger

JWT = "src/auth/jwt.py"
JOURNAL = ".orchestration/.local/saves"


async def kill(editor: Editor) -> None:
    server = editor.client._server  # the real server process pytest-lsp started
    assert server is not None
    os.kill(server.pid, signal.SIGKILL)
    await server.wait()
    await editor.client.stop()


async def test_a_save_killed_before_its_append_is_recorded_on_restart(
    client_name: str, workspace: Path
) -> None:
    editor = await start_editor(client_name, [workspace])
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    before = editor.texts[uri]
    blocker = workspace / LEDGER
    blocker.mkdir()  # the append fails: the record waits in memory for a retry
    editor.insert(uri, 0, 0, "# saved, then the server dies\n")
    await editor.save(uri)
    await editor.wait_for(
        lambda: any("cannot append" in m.message for m in editor.client.messages), "the failure"
    )
    await kill(editor)
    blocker.rmdir()
    assert records(workspace) == []
    restarted = await start_editor(client_name, [workspace])
    try:
        [note] = await restarted.wait_recorded(0, "the replayed record")
        [record] = records(workspace)
        assert note["id"] == record["id"] and note["path"] == JWT
        meta = record["metadata"]["intent_ls"]
        assert meta["before_hash"] == text_hash(before)
        assert meta["after_hash"] == text_hash(editor.texts[uri])
        assert meta["intent_id"] == "INT-001"
        assert record["files"][0]["conversations"][0]["ranges"][0]["start_line"] == 1
        assert verify_ledger(workspace / LEDGER).ok
        await restarted.wait_for(lambda: not list((workspace / JOURNAL).iterdir()), "no entry")
    finally:
        await restarted.client.shutdown_session()
        await restarted.client.stop()


async def test_a_kill_right_after_did_save_gives_exactly_one_record(
    client_name: str, workspace: Path
) -> None:
    """Killed as soon as didSave was handled, whether or not the append happened by then:
    after the restart the ledger holds the save's record exactly once."""
    editor = await start_editor(client_name, [workspace])
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    editor.insert(uri, 0, 0, "# saved, then the server dies\n")
    await editor.save(uri)
    await editor.settled()  # didSave was handled
    await kill(editor)
    restarted = await start_editor(client_name, [workspace])
    try:
        await restarted.execute("intent.list")
        await restarted.wait_for(
            lambda: len(records(workspace)) == 1 and not list((workspace / JOURNAL).iterdir()),
            "one record, no journal entry left",
        )
        [record] = records(workspace)
        assert record["metadata"]["intent_ls"]["after_hash"] == text_hash(editor.texts[uri])
        await restarted.settled()
        assert len(records(workspace)) == 1
    finally:
        await restarted.client.shutdown_session()
        await restarted.client.stop()
