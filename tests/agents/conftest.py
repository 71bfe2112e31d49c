"""A governed workspace and a runner for ``intent-ls hook`` as the agents call it."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import SPEC

APP = "def main():\n    return 1\n\n\ndef helper():\n    return 2\n"


@pytest.fixture(autouse=True)
def effects_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The hooks keep each call's before-state under $XDG_STATE_HOME: per test, not in
    the developer's home."""
    path = tmp_path / "xdg-state"
    monkeypatch.setenv("XDG_STATE_HOME", str(path))
    return path


@pytest.fixture(autouse=True)
def claude_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The hooks read Claude Code's user settings for its permission rules: per test, not
    the developer's own (``~/.claude/settings.json``)."""
    path = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(path))
    return path


@pytest.fixture(autouse=True)
def agents_homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The hooks read Gemini CLI's and Codex's own rules from their homes: per test, not
    the developer's (``~/.gemini``, ``~/.codex``)."""
    homes = {"gemini": tmp_path / "gemini-home", "codex": tmp_path / "codex-home"}
    monkeypatch.setenv("GEMINI_CLI_HOME", str(homes["gemini"]))
    monkeypatch.setenv("CODEX_HOME", str(homes["codex"]))
    return homes


@pytest.fixture
def governed(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".orchestration").mkdir(parents=True)
    (root / ".orchestration" / "active_intents.yaml").write_text(SPEC)
    (root / "src").mkdir()
    (root / "docs").mkdir()
    (root / "src" / "app.py").write_text(APP)
    (root / "docs" / "guide.md").write_text("# Guide\n")
    return root


@pytest.fixture
def agent_path(tmp_path: Path) -> Iterator[str]:
    """PATH for a real agent CLI with intent-ls first, through a wrapper that appends the
    stderr of every hook and MCP server process to a log: the agents only show it in
    debug logs, yet a traceback there is a crash the agent failed open on. After the
    test the log must exist (the agent ran intent-ls) and hold no traceback."""
    wrapper = tmp_path / "watched-bin"
    wrapper.mkdir()
    log = tmp_path / "intent-ls-stderr.log"
    real = Path(sys.executable).parent / "intent-ls"
    script = wrapper / "intent-ls"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(str(real))} "$@" 2>>{shlex.quote(str(log))}\n')
    script.chmod(0o755)
    yield os.pathsep.join([str(wrapper), str(real.parent), os.environ.get("PATH", "")])
    assert log.exists(), "the agent never ran intent-ls"
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in text, text[-4000:]


class Hook:
    def __init__(self, root: Path, agent: str = "claude-code", session: str = "s1") -> None:
        self.root = root
        self.agent = agent
        self.session = session

    def raw(
        self, data: bytes, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "intent_ls", "hook", self.agent],
            input=data,
            capture_output=True,
            timeout=60,
            check=False,
            env={**os.environ, **(env or {})},
        )

    def __call__(
        self,
        event: str,
        tool: str | None = None,
        args: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "session_id": self.session,
            "cwd": str(self.root),
            "hook_event_name": event,
            **extra,
        }
        if tool is not None:
            payload["tool_name"] = tool
            payload["tool_input"] = args or {}
        done = self.raw(json.dumps(payload).encode(), env)
        assert done.returncode == 0, done.stderr.decode()
        out = json.loads(done.stdout)  # stdout is exactly one JSON document
        assert isinstance(out, dict)
        return out


def decision(out: dict[str, Any]) -> tuple[str | None, str]:
    """(decision, reason) from a Claude/Codex or a Gemini answer."""
    if "decision" in out:
        return out["decision"], out.get("reason", "")
    spec = out.get("hookSpecificOutput") or {}
    return spec.get("permissionDecision"), spec.get("permissionDecisionReason", "")


def let_through(out: dict[str, Any]) -> bool:
    """No opinion: the agent's own rules apply (a shell command possibly rewritten to
    run under the write barrier: no decision on Claude Code and Gemini CLI, the
    ``allow`` Codex needs to apply a rewrite)."""
    spec = out.get("hookSpecificOutput") or {}
    return out == {} or set(spec) in (
        {"hookEventName", "updatedInput"},
        {"hookEventName", "tool_input"},
        {"hookEventName", "updatedInput", "permissionDecision"},
    )


def rewritten(out: dict[str, Any]) -> dict[str, Any] | None:
    """The tool input a before-tool answer replaces the agent's with, in any agent's
    spelling (Claude Code and Codex ``updatedInput``, Gemini CLI ``tool_input``)."""
    spec = out.get("hookSpecificOutput") or {}
    found = spec.get("updatedInput", spec.get("tool_input"))
    return found if isinstance(found, dict) else None
