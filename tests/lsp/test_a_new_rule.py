"""A rule added as one file (:mod:`tests.toy_rule`, on the path of the processes only)
shows at every door: the editor's diagnostics and quick fix, the agent hook's answer,
``intent-ls record`` and ``intent-ls check`` — with no other file of intent-ls touched."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from lsp_harness import start_editor, stop_editor

from tests import support
from tests.agents.conftest import Hook, decision
from tests.toy_rule import CODE, SECRET, plugin

REL = "src/auth/notes.txt"
SELECT = "mcp__intent-ls__select_active_intent"


def intent_ls(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return support.intent_ls(*args, "--workspace", str(root), env=env)


async def test_a_rule_added_as_one_file_answers_at_every_door(
    workspace: Path, tmp_path: Path, git_identity: None
) -> None:
    (workspace / REL).write_text("notes\n")
    root = support.committed(workspace)
    env = plugin(tmp_path)

    editor = await start_editor("visual-studio-code", [root], env={**os.environ, **env})
    try:
        await editor.execute("intent.select", "INT-001")
        uri = editor.open(REL)
        editor.replace(uri, (1, 0), (1, 0), f"{SECRET}\n")
        await editor.wait_diagnostics(
            REL, lambda d: any(x.code == CODE for x in d), "the toy rule's diagnostic"
        )
        [shown] = [d for d in editor.diagnostics(REL) if d.code == CODE]
        assert shown.message == f"writes a toy secret into {REL}"
        fixes = await editor.code_actions(uri, [shown])
        assert "Approve the toy secret" in [a.title for a in fixes]
    finally:
        await stop_editor(editor)

    hook = Hook(root)
    hook("PreToolUse", SELECT, {"intent_id": "INT-001"}, env=env)
    write = {"file_path": str(root / REL), "content": f"notes\n{SECRET}\n"}
    verdict, reason = decision(hook("PreToolUse", "Write", write, env=env))
    assert verdict == "deny"
    assert reason.startswith(f"[intent-ls] {CODE}: writes a toy secret into {REL}")
    assert "intent-ls approve" in reason

    (root / REL).write_text(f"notes\n{SECRET}\n")
    recorded = intent_ls(root, env, "record", REL, "--intent", "INT-001")
    assert (recorded.returncode, recorded.stdout) == (1, f"{REL}: recorded [{CODE}]\n")
    checked = intent_ls(root, env, "check", "--base", "HEAD", "--format", "json")
    findings = json.loads(checked.stdout)["findings"]
    assert checked.returncode == 1
    assert [(f["rule"], f["path"]) for f in findings] == [("unapproved-verdict", REL)]
    assert f"unapproved {CODE} verdict" in findings[0]["message"]

    approved = intent_ls(root, env, "approve", CODE, REL)
    assert approved.returncode == 0, approved.stderr
    checked = intent_ls(root, env, "check", "--base", "HEAD", "--format", "json")
    assert checked.returncode == 0, checked.stdout


def test_without_the_file_no_door_knows_the_rule(workspace: Path, git_identity: None) -> None:
    """The control: the same write, with the toy rule not on the path, passes."""
    (workspace / REL).write_text("notes\n")
    root = support.committed(workspace)
    hook = Hook(root)
    hook("PreToolUse", SELECT, {"intent_id": "INT-001"})
    write = {"file_path": str(root / REL), "content": f"notes\n{SECRET}\n"}
    assert hook("PreToolUse", "Write", write) == {}
