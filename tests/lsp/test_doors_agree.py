"""The same situation through every front door gets the same answer: the editor (a real
server over pytest-lsp), Claude Code's hook, ``intent-ls record`` and ``intent-ls check``.

The situation: a repository whose spec sets ``policy: {maxDeletedLines: 5}`` and a
change that deletes six lines of a governed file under the owning intent. Six lines is
below the built-in threshold (20), so only a door that reads the repository's policy
calls it destructive; the control runs the same change in a repository that sets none.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsp_harness import Editor, start_editor, stop_editor

from tests.agents.conftest import Hook, decision

REL = "src/auth/notes.txt"
OLD = "".join(f"note {i}\n" for i in range(1, 21))
#: Lines 5–10 deleted: six lines.
NEW = "".join(f"note {i}\n" for i in range(1, 21) if not 5 <= i <= 10)
SELECT = "mcp__intent-ls__select_active_intent"
DESTRUCTIVE = "deletes 6 lines (5–10)"


def intent_ls(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "intent_ls", *args, "--workspace", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=os.environ.copy(),
    )


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def committed(workspace: Path, policy: bool) -> Path:
    spec = workspace / ".orchestration" / "active_intents.yaml"
    if policy:
        spec.write_text(spec.read_text() + "\npolicy:\n  maxDeletedLines: 5\n")
    (workspace / REL).write_text(OLD)
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", "base")
    return workspace


@pytest.fixture(params=["repository policy", "no policy"])
def repository(request: pytest.FixtureRequest, workspace: Path, git_identity: None) -> Path:
    return committed(workspace, request.param == "repository policy")


def expected(repository: Path) -> bool:
    return "maxDeletedLines" in (repository / ".orchestration/active_intents.yaml").read_text()


async def editor_deletes(repository: Path, destructive: bool) -> list[str]:
    """What the editor shows after the six-line deletion (waiting for the diagnostic, or
    for the analysis to settle when none is expected)."""
    editor = await start_editor("visual-studio-code", [repository])
    try:
        await editor.execute("intent.select", "INT-001")
        uri = editor.open(REL)
        editor.replace(uri, (4, 0), (10, 0), "")
        if destructive:
            await editor.wait_diagnostics(REL, lambda d: bool(editor_says(editor)), "destructive")
        else:
            await editor.settled()
        return editor_says(editor)
    finally:
        await stop_editor(editor)


def editor_says(editor: Editor) -> list[str]:
    return [d.message for d in editor.diagnostics(REL) if d.code == "destructive-edit"]


async def test_every_door_applies_the_repository_policy(repository: Path) -> None:
    destructive = expected(repository)
    assert await editor_deletes(repository, destructive) == ([DESTRUCTIVE] if destructive else [])

    hook = Hook(repository)
    hook("PreToolUse", SELECT, {"intent_id": "INT-001"})
    hook("PostToolUse", "Read", {"file_path": str(repository / REL)})
    write = {"file_path": str(repository / REL), "content": NEW}
    answer: dict[str, Any] = hook("PreToolUse", "Write", write)
    if destructive:
        verdict, reason = decision(answer)
        assert verdict == "ask" and DESTRUCTIVE in reason
    else:
        assert answer == {}

    (repository / REL).write_text(NEW)
    recorded = intent_ls(repository, "record", REL, "--intent", "INT-001")
    codes = " [destructive-edit]" if destructive else ""
    assert recorded.stdout == f"{REL}: recorded{codes}\n", recorded.stderr
    assert recorded.returncode == (1 if destructive else 0)

    checked = intent_ls(repository, "check", "--base", "HEAD", "--format", "json")
    findings = json.loads(checked.stdout)["findings"]
    assert checked.returncode == (1 if destructive else 0), checked.stderr
    # The recorded save carries an unapproved destructive-edit, so it cannot vouch for
    # the deletion: check reports the deleted lines until a human approves.
    wanted = [("uncovered-deletion", REL, 5)] if destructive else []
    assert [(f["rule"], f["path"], f["start_line"]) for f in findings] == wanted


async def test_an_approval_lifts_the_verdict_at_every_door(
    workspace: Path, git_identity: None
) -> None:
    """One approval, recorded with the command the hook names, is the same approval for
    every door (policy/approvals.py holds the rule)."""
    repository = committed(workspace, policy=True)
    hook = Hook(repository)
    hook("PreToolUse", SELECT, {"intent_id": "INT-001"})
    hook("PostToolUse", "Read", {"file_path": str(repository / REL)})
    write = {"file_path": str(repository / REL), "content": NEW}
    verdict, reason = decision(hook("PreToolUse", "Write", write))
    assert verdict == "ask"
    [command] = re.findall(r"`intent-ls (approve [^`]+)`", reason)
    approved = intent_ls(repository, *shlex.split(command))
    assert approved.returncode == 0, approved.stderr

    assert await editor_deletes(repository, destructive=False) == []
    assert hook("PreToolUse", "Write", write) == {}
    (repository / REL).write_text(NEW)
    recorded = intent_ls(repository, "record", REL, "--intent", "INT-001")
    assert (recorded.returncode, recorded.stdout) == (0, f"{REL}: recorded [destructive-edit]\n")
    checked = intent_ls(repository, "check", "--base", "HEAD", "--format", "json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
