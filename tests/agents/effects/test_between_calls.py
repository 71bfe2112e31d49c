"""A protected path that appears between a session's calls — where the sandbox cannot
bind it (it did not exist) — is told and logged for the human, never removed, never
taken silently as the new normal."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from intent_ls.agents.sandbox import bwrap
from intent_ls.workspace import effects_log
from tests.agents.effects_helpers import Agent, git_workspace


@pytest.fixture
def ws(governed: Path) -> Path:
    return git_workspace(governed)


def _check(ws: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "intent_ls", "check", "--workspace", str(ws), "--base", "HEAD"],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip


def test_a_protected_file_made_between_calls_is_told_once_and_kept(ws: Path) -> None:
    agent = Agent(ws)
    agent.select("INT-APP")
    _, told = agent.shell("true")
    assert told == ""
    assert _check(ws).returncode == 0
    (ws / ".mcp.json").write_text('{"mcpServers": {}}\n')  # a human, or a process left running
    _, told = agent.shell("true")
    assert ".mcp.json" in told and "appeared between this session's tool calls" in told
    assert (ws / ".mcp.json").read_text() == '{"mcpServers": {}}\n'  # not removed
    [entry] = [e for e in effects_log.read(ws) if e["path"] == ".mcp.json"]
    assert entry["action"] == effects_log.UNRESTORABLE and entry["code"] == "protected-path"
    check = _check(ws)
    assert check.returncode != 0 and ".mcp.json" in check.stdout
    _, told = agent.shell("true")
    assert ".mcp.json" not in told  # said once; the human has it in the log


def test_another_session_and_the_first_call_see_nothing(ws: Path) -> None:
    (ws / ".intentignore").unlink()
    first = Agent(ws)
    first.select("INT-APP")
    (ws / ".intentignore").write_text("*.log\n")  # before the session's first call
    _, told = first.shell("true")
    assert told == ""
    assert list(effects_log.read(ws)) == []


@pytest.mark.skipif(not bwrap.works()[0], reason="bubblewrap cannot run here")
def test_a_process_a_call_left_running_cannot_plant_one_silently(ws: Path) -> None:
    """Through the sandbox (Claude Code's prefix): the process outlives its call and makes
    a protected file no mount could cover; the next call says so."""
    agent = Agent(ws)
    agent.select("INT-APP")
    late = (  # it waits for the test's go, given once the call was verified
        f'{sys.executable} -c "import os, time\n'
        "if os.fork() == 0:\n"
        "    os.setsid(); n = os.open('/dev/null', os.O_RDWR)\n"
        "    [os.dup2(n, f) for f in (0, 1, 2)]\n"
        "    while not os.path.exists('src/go'): time.sleep(0.05)\n"
        "    open('.mcp.json', 'w').write('{}')\n"
        "    open('src/late-done', 'w').write('1')\""
    )
    agent.shell(late)
    (ws / "src" / "go").write_text("")
    marker = ws / "src" / "late-done"
    deadline = time.monotonic() + 20
    while not marker.exists() and time.monotonic() < deadline:  # the process says it is done
        time.sleep(0.05)
    assert marker.exists() and (ws / ".mcp.json").exists(), sorted(p.name for p in ws.iterdir())
    _, told = agent.shell("true")
    assert ".mcp.json" in told
    assert _check(ws).returncode != 0
