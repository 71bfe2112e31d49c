"""``intent-ls hooks install qwen`` and ``intent-ls hook qwen`` as Qwen Code runs it: the
settings it writes, a shell command let through only in its sandboxed form, what needs a
human denied with the approve step, and ``doctor`` naming a switched-off hook."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls.agents import barrier
from intent_ls.agents.events import Decision
from intent_ls.agents.gate import shell_barrier
from intent_ls.agents.gate.governance import load_governance
from intent_ls.agents.qwen import adapter as qwen
from intent_ls.cli.main import main
from tests.agents.conftest import Hook, decision


def install(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "intent_ls", "hooks", "install", "qwen", "--workspace",
         str(root), *extra],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip


def test_install_writes_hooks_and_a_trusted_server_and_keeps_the_users(tmp_path: Path) -> None:
    assert install(tmp_path).returncode == 0
    path = tmp_path / ".qwen" / "settings.json"
    settings = json.loads(path.read_text())
    assert settings["$version"] == 4  # Qwen would stamp a file without it when it starts
    assert set(settings["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreToolUse",
                                      "PostToolUse", "PostToolUseFailure"}  # fmt: skip
    entry = settings["hooks"]["PreToolUse"][0]
    assert entry["matcher"] == ".*" and entry["hooks"][0]["timeout"] == 10
    assert entry["hooks"][0]["command"].endswith("hook qwen")
    assert settings["mcpServers"]["intent-ls"]["trust"] is True
    assert "nothing changed" in install(tmp_path).stdout
    mine = {"matcher": "^write_file$", "hooks": [{"type": "command", "command": "echo mine"}]}
    settings["hooks"]["PreToolUse"].append(mine)
    settings["mcpServers"]["other"] = {"command": "other"}
    path.write_text(json.dumps(settings))
    assert install(tmp_path).returncode == 0
    assert mine in json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert install(tmp_path, "--uninstall").returncode == 0
    left = json.loads(path.read_text())
    assert left == {"$version": 4, "hooks": {"PreToolUse": [mine]},
                    "mcpServers": {"other": {"command": "other"}}}  # fmt: skip


def test_an_existing_settings_file_keeps_its_own_version(tmp_path: Path) -> None:
    path = tmp_path / ".qwen" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"$version": 3, "ui": {"theme": "x"}}))
    assert install(tmp_path).returncode == 0
    settings = json.loads(path.read_text())
    assert settings["$version"] == 3 and settings["ui"] == {"theme": "x"}


def shell(hook: Hook, command: str) -> tuple[str | None, str]:
    return decision(hook("PreToolUse", "run_shell_command", {"command": command}))


@pytest.mark.skipif(not barrier.available(), reason="no sandbox can be made here")
def test_a_command_runs_only_in_its_sandboxed_form(governed: Path) -> None:
    hook = Hook(governed, "qwen", "q1")
    verdict, reason = shell(hook, "ls src")
    form = barrier.wrap(sys.executable, governed, "ls src")
    assert verdict == "deny" and "sandbox-required" in reason and reason.endswith(form)
    assert hook("PreToolUse", "run_shell_command", {"command": form}) == {}
    # A look-alike naming another root or interpreter is not that form.
    other = barrier.wrap(sys.executable, governed.parent, "ls src")
    assert shell(hook, other)[0] == "deny"
    # In that form a destructive command is judged as itself: denied with the step.
    verdict, reason = shell(hook, barrier.wrap(sys.executable, governed, "rm -rf src"))
    assert verdict == "deny" and "destructive-command" in reason
    assert "intent-ls approve" in reason and "--command 'rm -rf src'" in reason
    told = hook("SessionStart")["hookSpecificOutput"]["additionalContext"]
    assert "run that form, unchanged" in told


def test_without_a_sandbox_a_command_runs_as_written(
    governed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no sandbox can be made, nothing could run the sandboxed form: the command
    goes on as written, to be judged and verified after it ran."""
    gov = load_governance(governed)
    assert gov is not None
    event = qwen.parse(
        {"session_id": "q3", "cwd": str(governed), "hook_event_name": "PreToolUse",
         "tool_name": "run_shell_command", "tool_input": {"command": "ls src"}}
    )  # fmt: skip
    assert event.tool is not None
    monkeypatch.setattr(shell_barrier, "barrier_available", lambda root, event: False)
    assert shell_barrier.sandbox_first(gov, event, event.tool) is None
    monkeypatch.setattr(shell_barrier, "barrier_available", lambda root, event: True)
    refused = shell_barrier.sandbox_first(gov, event, event.tool)
    assert refused is not None and refused.decision is Decision.DENY


def test_doctor_names_switched_off_hooks(
    governed: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert install(governed).returncode == 0
    path = governed / ".qwen" / "settings.json"
    settings = json.loads(path.read_text())
    path.write_text(json.dumps({**settings, "disableAllHooks": True}))
    monkeypatch.setenv("QWEN_HOME", str(tmp_path / "qwen-home"))
    main(["doctor", "--workspace", str(governed)])
    out = capsys.readouterr().out
    enabled = [line for line in out.splitlines() if line.startswith("FAIL  qwen enabled: ")]
    assert enabled and "sets `disableAllHooks`: Qwen Code runs no hook." in enabled[0], out
