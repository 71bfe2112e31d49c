"""``intent-ls hooks install``: idempotent merges that keep the user's own entries."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from intent_ls.agents import registry
from intent_ls.doctor.hooks import matches


def install(root: Path, agent: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "intent_ls", "hooks", "install", agent, "--workspace", str(root),
         *extra],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip


def commands(settings: dict, event: str) -> list[str]:
    return [h["command"] for e in settings["hooks"].get(event, []) for h in e["hooks"]]


def test_claude_keeps_user_entries_and_is_idempotent(tmp_path: Path) -> None:
    settings_path = tmp_path / ".claude" / "settings.json"
    settings_path.parent.mkdir()
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}
    settings_path.write_text(json.dumps({"model": "opus", "hooks": {"PreToolUse": [mine]}}))
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    first = install(tmp_path, "claude-code")
    assert first.returncode == 0, first.stderr
    assert "settings.json" in first.stdout and ".mcp.json" in first.stdout
    settings = json.loads(settings_path.read_text())
    assert settings["model"] == "opus"
    pre = commands(settings, "PreToolUse")
    assert pre[0] == "echo mine" and pre[1].endswith("hook claude-code")
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse"):
        assert commands(settings, event)[0].endswith("hook claude-code")
    matcher = settings["hooks"]["PreToolUse"][1]["matcher"]
    reached = ("Write", "Bash", "mcp__intent-ls__select_active_intent", "MultiEdit", "mcp__x__w")
    assert all(matches(registry.get("claude-code"), matcher, tool) for tool in reached)
    post = settings["hooks"]["PostToolUse"][0]["matcher"]
    assert all(matches(registry.get("claude-code"), post, tool) for tool in reached)
    servers = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"other", "intent-ls"} and servers["intent-ls"]["args"] == ["mcp"]
    before = settings_path.read_text()
    second = install(tmp_path, "claude-code")
    assert "nothing changed" in second.stdout
    assert settings_path.read_text() == before
    removed = install(tmp_path, "claude-code", "--uninstall")
    assert removed.returncode == 0
    after = json.loads(settings_path.read_text())
    assert after == {"model": "opus", "hooks": {"PreToolUse": [mine]}}
    assert set(json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]) == {"other"}


def test_claude_commands_run_through_the_sandboxs_prefix(tmp_path: Path) -> None:
    """The prefix goes beside the user's own variables and leaves with the uninstall; a
    prefix of the user's own is not replaced (commands cannot run through two)."""
    settings_path = tmp_path / ".claude" / "settings.json"
    settings_path.parent.mkdir()
    settings_path.write_text(json.dumps({"env": {"MY_VAR": "1"}}))
    assert install(tmp_path, "claude-code").returncode == 0
    env = json.loads(settings_path.read_text())["env"]
    assert env["MY_VAR"] == "1" and env["CLAUDE_CODE_SHELL_PREFIX"].endswith("intent-ls-sandbox")
    assert " " not in env["CLAUDE_CODE_SHELL_PREFIX"]  # MCP servers start it as one program
    hooks = json.loads(settings_path.read_text())["hooks"]["PreToolUse"][0]["hooks"]
    assert hooks[0]["onFailure"] == "block"
    assert install(tmp_path, "claude-code", "--uninstall").returncode == 0
    assert json.loads(settings_path.read_text()) == {"env": {"MY_VAR": "1"}}
    settings_path.write_text(json.dumps({"env": {"CLAUDE_CODE_SHELL_PREFIX": "/usr/bin/log"}}))
    refused = install(tmp_path, "claude-code")
    assert refused.returncode != 0 and "CLAUDE_CODE_SHELL_PREFIX" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert json.loads(settings_path.read_text())["env"] == {
        "CLAUDE_CODE_SHELL_PREFIX": "/usr/bin/log"
    }


def test_codex_hooks_and_config(tmp_path: Path) -> None:
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "gpt-5.5"\n\n[features]\nplugins = false\n')
    assert install(tmp_path, "codex").returncode == 0
    hooks = json.loads((tmp_path / ".codex" / "hooks.json").read_text())
    assert commands(hooks, "PreToolUse")[0].endswith("hook codex")
    parsed = tomllib.loads(config.read_text())
    assert parsed["model"] == "gpt-5.5"
    assert parsed["features"] == {"plugins": False, "hooks": True}
    assert parsed["mcp_servers"]["intent-ls"]["args"] == ["mcp"]
    text = config.read_text()
    assert "nothing changed" in install(tmp_path, "codex").stdout
    assert config.read_text() == text
    install(tmp_path, "codex", "--uninstall")
    assert "mcp_servers" not in tomllib.loads(config.read_text())


def test_gemini_hooks_and_trusted_server(tmp_path: Path) -> None:
    assert install(tmp_path, "gemini").returncode == 0
    settings = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    for event in ("SessionStart", "BeforeAgent", "BeforeModel", "BeforeTool", "AfterTool"):
        assert commands(settings, event)[0].endswith("hook gemini")
    assert settings["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"] == 10000
    assert settings["mcpServers"]["intent-ls"]["trust"] is True
    assert "nothing changed" in install(tmp_path, "gemini").stdout


def test_broken_settings_are_reported_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{not json")
    done = install(tmp_path, "claude-code")
    assert done.returncode == 2 and "not valid JSON" in done.stderr
    assert path.read_text() == "{not json"


def test_an_intent_ls_inside_the_workspace_is_not_installed(tmp_path: Path) -> None:
    """Route 4 of issue 28: a project venv is writable by the agent (``pip install``, a
    ``.pth`` file), so hooks pointing at an intent-ls there would run the agent's code."""
    import os
    import site

    import intent_ls

    venv = tmp_path / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    path = os.pathsep.join([str(Path(intent_ls.__file__).parents[1]), *site.getsitepackages()])
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "intent_ls", "hooks", "install", "claude-code",
         "--workspace", str(tmp_path)],
        capture_output=True, text=True, check=False, timeout=60,
        env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "inside the workspace" in done.stderr and "pipx install intent-ls" in done.stderr
    assert not (tmp_path / ".claude").exists()
