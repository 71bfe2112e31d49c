"""GitHub Copilot CLI's hook payloads → the one event model, outcomes → its JSON, its
install and its doctor checks. Payload shapes are the real CLI's (1.0.92, 1.0.102: its
PascalCase events, Claude Code's format with Copilot's tool arguments)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from intent_ls.agents.copilot import adapter as copilot
from intent_ls.agents.events import Decision, Outcome, Phase, ToolKind
from intent_ls.cli.main import main
from tests.agents.conftest import Hook

BASE = {"session_id": "abc", "cwd": "/ws", "timestamp": "2026-11-29T13:36:55.198Z"}


def _call(event: str, tool: str, args: dict[str, object]) -> dict[str, object]:
    return {**BASE, "hook_event_name": event, "tool_name": tool, "tool_input": args}


def test_copilot_tools_are_read_by_what_they_do() -> None:
    write = copilot.parse(_call("PreToolUse", "Write", {"path": "/ws/a.py", "file_text": "x\n"}))
    assert write.agent == "copilot" and write.phase is Phase.BEFORE_TOOL
    assert write.tool is not None and write.tool.kind is ToolKind.WRITE
    assert write.tool.files[0].path == "/ws/a.py" and write.tool.files[0].new_text == "x\n"
    edit = copilot.parse(
        _call("PreToolUse", "Edit", {"path": "/ws/a.py", "old_str": "1", "new_str": "2"})
    )
    assert edit.tool is not None and edit.tool.files[0].transform is not None
    assert edit.tool.files[0].transform("1 1") == "2 1"
    shell = copilot.parse(_call("PreToolUse", "Bash", {"command": "rm -rf src", "mode": "sync"}))
    assert shell.tool is not None and shell.tool.kind is ToolKind.SHELL
    assert shell.tool.command == "rm -rf src" and shell.tool.arguments["mode"] == "sync"
    own = copilot.parse(
        _call("PreToolUse", "intent-ls-select_active_intent", {"intent_id": "INT-APP"})
    )
    assert own.tool is not None and own.tool.kind is ToolKind.OWN_MCP
    assert own.tool.mcp_tool == "select_active_intent"
    read = copilot.parse(_call("PreToolUse", "Read", {"path": "/ws/a.py"}))
    assert read.tool is not None and read.tool.kind is ToolKind.READ
    other = copilot.parse(_call("PreToolUse", "task", {"prompt": "x"}))
    assert other.tool is not None and other.tool.kind is ToolKind.OTHER


def test_a_write_without_its_path_is_refused_not_guessed() -> None:
    event = copilot.parse(_call("PreToolUse", "Write", {"file_path": "/ws/a.py"}))
    assert event.tool is not None and event.tool.problem is not None
    assert "path" in event.tool.problem


def test_a_failed_tool_is_judged_after_it_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COPILOT_MODEL", raising=False)
    payload = _call("PostToolUseFailure", "Edit", {"path": "/ws/a.py"})
    event = copilot.parse({**payload, "error": "ENOENT"})
    assert event.phase is Phase.AFTER_TOOL and event.tool is not None and event.tool.failed
    answer = copilot.render("PostToolUseFailure", Outcome(context="put back"))
    assert answer["hookSpecificOutput"] == {
        "hookEventName": "PostToolUseFailure",
        "additionalContext": "put back",
    }


def test_the_model_comes_from_the_sessions_event_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COPILOT_MODEL", raising=False)
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path))
    log = tmp_path / "session-state" / "abc" / "events.jsonl"
    log.parent.mkdir(parents=True)
    lines = [
        {"type": "session.start", "data": {"selectedModel": "gpt-5.4"}},
        {"type": "tool.execution_start", "data": {"toolName": "bash", "model": "gpt-5.4-mini"}},
        {"type": "hook.start", "data": {"hookType": "postToolUse"}},
    ]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    after = copilot.parse(_call("PostToolUse", "Bash", {"command": "ls"}))
    assert after.model == "gpt-5.4-mini"
    monkeypatch.setenv("COPILOT_MODEL", "chosen")
    assert copilot.parse(_call("PostToolUse", "Bash", {"command": "ls"})).model == "chosen"


def test_answers_are_claude_codes_format() -> None:
    assert copilot.render("PreToolUse", Outcome(Decision.DENY, "no")) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }
    rewrite = copilot.render("PreToolUse", Outcome(updated_input={"command": "x"}))
    assert rewrite == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "x"}}
    }
    assert copilot.render("PreToolUse", Outcome()) == {}
    start = copilot.render("SessionStart", Outcome(context="c"))
    assert start["hookSpecificOutput"]["additionalContext"] == "c"


def test_install_keeps_the_users_own_hooks_and_servers(governed: Path) -> None:
    hooks_dir = governed / ".github" / "hooks"
    hooks_dir.mkdir(parents=True)
    (hooks_dir / "mine.json").write_text('{"version": 1, "hooks": {}}')
    mcp = governed / ".github" / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    assert main(["hooks", "install", "copilot", "--workspace", str(governed)]) == 0
    ours = json.loads((hooks_dir / "intent-ls.json").read_text())
    assert ours["version"] == 1
    assert set(ours["hooks"]) == {
        "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"
    }  # fmt: skip
    [entry] = ours["hooks"]["PreToolUse"]
    assert entry["matcher"] == ".*" and entry["hooks"][0]["command"].endswith("hook copilot")
    servers = json.loads(mcp.read_text())["mcpServers"]
    assert set(servers) == {"other", "intent-ls"} and servers["intent-ls"]["args"] == ["mcp"]
    assert main(["hooks", "install", "copilot", "--uninstall", "--workspace", str(governed)]) == 0
    assert not (hooks_dir / "intent-ls.json").exists()
    assert (hooks_dir / "mine.json").exists()
    assert json.loads(mcp.read_text()) == {"mcpServers": {"other": {"command": "x"}}}


def test_its_settings_are_protected(governed: Path) -> None:
    assert main(["hooks", "install", "copilot", "--workspace", str(governed)]) == 0
    hook = Hook(governed, agent="copilot")
    for rel in (".github/hooks/intent-ls.json", ".github/hooks/off.json", ".github/mcp.json",
                ".github/copilot/settings.json"):  # fmt: skip
        out = hook("PreToolUse", "Write", {"path": str(governed / rel), "file_text": "{}"})
        assert "protected-path" in json.dumps(out), rel


def test_claude_codes_hook_run_by_copilot_answers_as_copilot(governed: Path) -> None:
    """Copilot runs ``.claude/settings.json`` hooks with its own payloads and
    ``COPILOT_PROJECT_DIR`` set; without Copilot's own hook the Claude Code hook judges
    the call as Copilot's, beside it the hook stays out."""
    hook = Hook(governed, agent="claude-code")
    env = {"COPILOT_PROJECT_DIR": str(governed), "COPILOT_CLI": "1"}
    args = {"path": str(governed / "src/x.py"), "file_text": "x"}
    alone = json.dumps(hook("PreToolUse", "Write", args, env=env))
    assert "no-active-intent" in alone and "file_path" not in alone
    assert "file_path" in json.dumps(hook("PreToolUse", "Write", args))  # Claude Code's own
    assert main(["hooks", "install", "copilot", "--workspace", str(governed)]) == 0
    assert hook("PreToolUse", "Write", args, env=env) == {}


@pytest.fixture
def on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """``intent-ls`` on PATH, as a user's install puts it."""
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ.get("PATH", ""))


def _doctor(governed: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    main(["doctor", "--workspace", str(governed)])
    return [line for line in capsys.readouterr().out.splitlines() if " copilot " in line]


def test_doctor_proves_the_hook_fires_and_names_each_breakage(
    on_path: None, governed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hooks", "install", "copilot", "--workspace", str(governed)]) == 0
    mine = _doctor(governed, capsys)
    assert not [line for line in mine if line.startswith("FAIL")], mine
    fires = [line for line in mine if line.startswith("ok    copilot fires on")]
    assert len(fires) == 2, mine
    assert "no-active-intent" in fires[0] and "(ask, destructive-command)" in fires[1]
    assert any(line.startswith("ok    copilot MCP server:") for line in mine), mine
    assert any("times out or prints something that is not JSON" in line for line in mine)
    assert any("folder trust" in line for line in mine)
    hooks_file = governed / ".github/hooks/intent-ls.json"
    renamed = hooks_file.read_text().replace("intent-ls hook", "intent-ls-gone hook")
    hooks_file.write_text(renamed)
    broken = _doctor(governed, capsys)
    assert any(line.startswith("FAIL  copilot command") for line in broken), "\n".join(broken)
    (governed / ".github/hooks/off.json").write_text('{"disableAllHooks": true}')
    assert any("disableAllHooks" in line for line in _doctor(governed, capsys))
    hooks_file.unlink()
    assert any(
        line.startswith("FAIL  copilot hooks") and "no intent-ls hooks" in line
        for line in _doctor(governed, capsys)
    )
