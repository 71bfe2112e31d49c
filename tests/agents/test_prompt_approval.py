"""A yes at the agent's own permission prompt is the human's approval, recorded as
``intent-ls approve`` records it — for exactly the change the prompt showed."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from intent_ls.common.hashing import text_hash
from tests.agents.conftest import APP, Hook, decision, let_through
from tests.support import committed, intent_ls, records

SELECT = "mcp__intent-ls__select_active_intent"
#: ``src/app.py`` without ``helper``: a destructive edit.
CUT = "def main():\n    return 1\n"
CUT_EDIT = {"old_string": "\n\ndef helper():\n    return 2\n", "new_string": ""}


@pytest.fixture
def repo(governed: Path) -> Path:
    return committed(governed)


def check(root: Path) -> subprocess.CompletedProcess[str]:
    return intent_ls("check", "--workspace", str(root), "--format", "json")


def asked_edit(hook: Hook, root: Path, **extra: Any) -> tuple[dict[str, Any], str]:
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    args = {"file_path": str(root / "src/app.py"), **CUT_EDIT}
    verdict, reason = decision(hook("PreToolUse", "Edit", args, **extra))
    assert verdict == "ask" and "deletes function `helper`" in reason
    return args, reason


def meta(record: dict[str, Any]) -> dict[str, Any]:
    return record["metadata"]["intent_ls"]


@pytest.mark.parametrize("agent", ["claude-code", "gemini"])
def test_a_yes_at_the_prompt_is_recorded_as_intent_ls_approve_records_it(
    repo: Path, tmp_path: Path, agent: str
) -> None:
    hook = Hook(repo, agent=agent)
    if agent == "claude-code":
        args, reason = asked_edit(hook, repo, permission_mode="default")
        after = ("PostToolUse", "Edit")
    else:
        hook("BeforeTool", "mcp_intent-ls_select_active_intent", {"intent_id": "INT-APP"})
        args = {"file_path": str(repo / "src/app.py"), "content": CUT}
        verdict, reason = decision(hook("BeforeTool", "write_file", args))
        assert verdict == "ask"
        after = ("AfterTool", "write_file")
    (repo / "src/app.py").write_text(CUT)  # the human said yes: the agent writes
    assert check(repo).returncode == 1  # not recorded yet: the change is uncovered
    hook(*after, args)
    approval_record, mutation = records(repo)
    [given] = meta(approval_record)["approvals"]
    assert meta(approval_record)["kind"] == "approval"
    assert given["approver"] == {"type": "human"}
    assert given["reason"] == f"approved at the {agent} permission prompt"
    # the same approval the ask's own `intent-ls approve …` command records
    command = re.search(r"`(intent-ls approve [^`]+)`", reason)
    assert command is not None
    words = shlex.split(command.group(1))
    elsewhere = tmp_path / "elsewhere"
    subprocess.run(["cp", "-r", str(repo), str(elsewhere)], check=True)
    (elsewhere / "src/app.py").write_text(APP)
    words[words.index("--workspace") + 1] = str(elsewhere)
    assert intent_ls(*words[1:]).returncode == 0
    by_command = meta(records(elsewhere)[-1])["approvals"][0]
    assert {k: v for k, v in given.items() if k != "reason"} == by_command
    assert meta(approval_record)["verdicts"] == meta(records(elsewhere)[-1])["verdicts"]
    # the write's own record carries it, so `intent-ls check` passes
    assert meta(mutation)["kind"] == "mutation"
    assert [v["code"] for v in meta(mutation)["verdicts"]] == ["destructive-edit"]
    assert meta(mutation)["approvals"] == [given]
    done = check(repo)
    assert done.returncode == 0, done.stdout + done.stderr


def test_other_content_than_the_prompt_showed_is_not_approved(repo: Path) -> None:
    hook = Hook(repo)
    args, _ = asked_edit(hook, repo)
    (repo / "src/app.py").write_text("x = 1\n")  # not what the human was shown
    hook("PostToolUse", "Edit", args)
    [mutation] = records(repo)
    assert meta(mutation)["approvals"] == []
    assert json.loads(check(repo).stdout)["findings"][0]["rule"] == "unapproved-verdict"


def _cut_by_shell(hook: Hook, repo: Path) -> str:
    """A shell redirect that deletes ``helper``, run; the after-tool event's context."""
    shell = {"command": "printf 'def main():\\n    return 1\\n' > src/app.py"}
    assert let_through(hook("PreToolUse", "Bash", shell, tool_use_id="t1"))
    (repo / "src/app.py").write_text(CUT)
    answer = hook("PostToolUse", "Bash", shell, tool_use_id="t1")
    return str(answer["hookSpecificOutput"]["additionalContext"])


def test_a_write_never_asked_about_gets_no_approval(repo: Path) -> None:
    """A shell redirect that deletes a definition is judged on its path alone beforehand
    and by its effect after it ran: nobody was asked, so it is put back until a human
    approves it, and nothing is recorded as approved."""
    hook = Hook(repo)
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    told = _cut_by_shell(hook, repo)
    assert "src/app.py: destructive-edit, restored" in told
    assert (repo / "src/app.py").read_text() == APP
    assert records(repo) == []
    assert check(repo).returncode == 0


def test_a_refused_prompt_leaves_no_approval_for_a_later_write(repo: Path) -> None:
    hook = Hook(repo)
    asked_edit(hook, repo)  # the human says no: no after-tool event
    # the very content the refused prompt showed, written by the shell: put back
    assert "destructive-edit, restored" in _cut_by_shell(hook, repo)
    assert (repo / "src/app.py").read_text() == APP
    assert records(repo) == []


def test_an_unattended_mode_never_counts_as_a_human(repo: Path) -> None:
    hook = Hook(repo)
    args, _ = asked_edit(hook, repo, permission_mode="bypassPermissions")
    (repo / "src/app.py").write_text(CUT)
    hook("PostToolUse", "Edit", args)
    [mutation] = records(repo)
    assert meta(mutation)["approvals"] == []
    assert check(repo).returncode == 1


def test_codex_still_denies_and_records_nothing(repo: Path) -> None:
    hook = Hook(repo, agent="codex")
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    patch = "*** Begin Patch\n*** Delete File: src/app.py\n*** End Patch\n"
    verdict, _ = decision(hook("PreToolUse", "apply_patch", {"command": patch}))
    assert verdict == "deny"
    state = repo / ".orchestration" / ".local" / "agents" / "codex-s1.json"
    assert json.loads(state.read_text()).get("pending", {}) == {}


def test_the_hash_the_prompt_was_about_is_kept_per_session(repo: Path) -> None:
    hook = Hook(repo)
    asked_edit(hook, repo)
    state = repo / ".orchestration" / ".local" / "agents" / "claude-code-s1.json"
    entry = json.loads(state.read_text())["pending"]["src/app.py"]
    assert entry["old"] == APP
    assert entry["asked"]["after"] == text_hash(CUT)
    assert [a["verdict_code"] for a in entry["asked"]["approvals"]] == ["destructive-edit"]
