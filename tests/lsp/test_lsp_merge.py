"""Saves recorded by real servers in two clones merge cleanly after ``intent-ls init``;
the server's blame picks up the other clone's records after ``git pull``; a clone
without the merge driver is warned about once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_harness import Editor, fresh_workspace, start_editor, stop_editor
from lsprotocol import types
from test_lsp_blame import hover, lenses
from test_lsp_ledger import select

from intent_ls.ledger.verify import verify_ledger
from tests.support import git

LEDGER = ".orchestration/agent_trace.jsonl"


pytestmark = pytest.mark.usefixtures("git_identity")


def init(root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "init", "--workspace", str(root)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


async def recorded_save(editor: Editor, rel: str, intent: str, line: str) -> None:
    await select(editor, intent)
    path = editor.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("", encoding="utf-8")
    uri = editor.open(rel)
    editor.insert(uri, 0, 0, line)
    since = editor.recorded_count()
    await editor.save(uri)
    await editor.wait_recorded(since)
    editor.close(uri)


async def test_two_clones_with_server_saves_pull_cleanly(client_name: str, tmp_path: Path) -> None:
    first = fresh_workspace(tmp_path, "first")
    git(first, "init", "-q", "-b", "main")
    init(first)
    git(first, "add", "-A")
    git(first, "commit", "-q", "-m", "start")
    second = tmp_path / "second"
    git(tmp_path, "clone", "-q", str(first), str(second))
    init(second)

    editor = await start_editor(client_name, [first])
    await recorded_save(editor, "src/auth/one.py", "INT-001", "def one():\n    return 'one'\n")
    await stop_editor(editor)
    git(first, "add", "-A")
    git(first, "commit", "-q", "-m", "one")

    editor = await start_editor(client_name, [second])
    try:
        await recorded_save(editor, "src/api/two.py", "INT-002", "def two():\n    return 2\n")
        git(second, "add", "-A")
        git(second, "commit", "-q", "-m", "two")
        git(second, "pull", "-q", "--no-rebase", "--no-edit")
        assert git(second, "status", "--porcelain") == ""
        assert verify_ledger(second / LEDGER).ok
        # The running server's index picks up the records the merge brought in.
        uri = editor.open("src/auth/one.py")
        text = await hover(editor, uri, 0)
        assert text is not None and "INT-001" in text
        # Again by rebase: the other clone's records now come first, ours after them.
        git(second, "reset", "-q", "--hard", "HEAD~1")
        git(second, "pull", "-q", "--rebase")
        lines = (second / LEDGER).read_bytes().splitlines()
        assert '"INT-001"' in lines[0].decode() and verify_ledger(second / LEDGER).ok
        for rel, intent in (("src/auth/one.py", "INT-001"), ("src/api/two.py", "INT-002")):
            uri = editor.open(rel) if rel != "src/auth/one.py" else uri
            text = await hover(editor, uri, 0)
            assert text is not None and intent in text
            assert (await lenses(editor, uri))[0] == f"{intent} · 1 change"
    finally:
        await stop_editor(editor)
    checked = subprocess.run(
        [sys.executable, "-m", "intent_ls", "check", "--base", "origin/main~1"],
        cwd=second,
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


async def test_a_clone_without_the_driver_is_warned_once(client_name: str, tmp_path: Path) -> None:
    root = fresh_workspace(tmp_path)
    git(root, "init", "-q", "-b", "main")
    (root / LEDGER).write_bytes(b"")
    editor = await start_editor(client_name, [root])
    try:
        # Two warnings: the attributes, and this clone's .git/config (sent one by one).
        await editor.wait_for(
            lambda: (
                sum(
                    m.type == types.MessageType.Warning and "intent-ls init" in m.message
                    for m in editor.client.messages
                )
                >= 2
            ),
            "both missing merge driver warnings",
        )
        await editor.settled()
        warnings = [m for m in editor.client.messages if "intent-ls init" in m.message]
        assert len(warnings) == 2
    finally:
        await stop_editor(editor)
