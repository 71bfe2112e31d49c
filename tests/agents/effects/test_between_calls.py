"""A protected path that appears between a session's calls — where the sandbox cannot
bind it (it did not exist) — is told and logged for the human, never removed, never
taken silently as the new normal."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from intent_ls.agents.mcp import Handshake
from intent_ls.agents.sandbox import bwrap
from intent_ls.workspace import effects_log
from tests.agents.conftest import decision
from tests.agents.effects_helpers import Agent, git_workspace
from tests.support import records


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


def _lingering(*writes: tuple[str, str], lives: float = 1) -> str:
    """A command that leaves a process running (its own session, descriptors closed):
    on the test's go it writes each (path, text), then ``src/late-done``, and lives on
    ``lives`` seconds."""
    body = "".join(f"    open({path!r}, 'w').write({text!r})\n" for path, text in writes)
    code = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid(); os.closerange(0, 1024)\n"
        "    while not os.path.exists('src/go'): time.sleep(0.05)\n"
        f"{body}"
        "    open('src/late-done', 'w').write('1')\n"
        f"    time.sleep({lives})\n"
    )
    return f"{sys.executable} -c {shlex.quote(code)}"


def _go_and_wait(ws: Path) -> None:
    (ws / "src" / "go").write_text("")
    marker = ws / "src" / "late-done"
    deadline = time.monotonic() + 20
    while not marker.exists() and time.monotonic() < deadline:  # the process says it is done
        time.sleep(0.05)
    assert marker.exists(), "the process never wrote"


sandboxed = pytest.mark.skipif(not bwrap.works()[0], reason="bubblewrap cannot run here")


@sandboxed
@pytest.mark.parametrize("agent_name", ["claude-code", "codex"])
def test_a_process_left_running_is_judged_as_the_sessions(ws: Path, agent_name: str) -> None:
    """Claude Code's prefix waits for the sandbox; Codex's barrier becomes it. Either
    way the next call judges what the process changed: the in-scope file is recorded as
    the session's, the out-of-scope one held for a human, neither lost."""
    agent = Agent(ws, agent_name)
    agent.select("INT-APP")
    agent.shell(_lingering(("src/late.py", "late = 1\n"), ("docs/guide.md", "# Taken over\n")))
    _go_and_wait(ws)
    _, told = agent.shell("true")
    assert "Between this session's tool calls" in told, told
    assert "docs/guide.md: out-of-scope, held" in told
    assert "src/late.py" in told and "recorded as this session's change" in told
    assert (ws / "docs" / "guide.md").read_text() == "# Taken over\n"  # not put back
    [held] = [e for e in effects_log.read(ws) if e["path"] == "docs/guide.md"]
    assert held["action"] == effects_log.UNRESTORABLE and held["code"] == "out-of-scope"
    kept = Path(held["detail"].rsplit("kept in ", 1)[1])
    assert kept.read_text() == "# Guide\n"  # what the human can put back
    late = [r for r in records(ws) if r["files"][0]["path"] == "src/late.py"]
    assert len(late) == 1 and late[0]["metadata"]["intent_ls"]["intent_id"] == "INT-APP"
    check = _check(ws)
    assert check.returncode != 0 and "docs/guide.md" in check.stdout
    _, told = agent.shell("true")
    assert "docs/guide.md" not in told  # judged once


@sandboxed
def test_a_destructive_change_left_to_a_process_is_held(ws: Path) -> None:
    agent = Agent(ws)
    agent.select("INT-APP")
    agent.shell(_lingering(("src/app.py", "")))
    _go_and_wait(ws)
    _, told = agent.shell("true")
    assert "src/app.py: destructive-edit, held" in told, told
    assert (ws / "src" / "app.py").read_text() == ""
    assert not [r for r in records(ws) if r["files"][0]["path"] == "src/app.py"]


@sandboxed
def test_a_humans_change_after_every_process_ended_is_theirs(ws: Path) -> None:
    """Nothing of the session is alive between the calls: the change is not its."""
    agent = Agent(ws)
    agent.select("INT-APP")
    agent.shell("echo 'y = 1' > src/y.py")
    (ws / "docs" / "guide.md").write_text("# Mine\n")
    _, told = agent.shell("true")
    assert told == ""
    assert (ws / "docs" / "guide.md").read_text() == "# Mine\n"
    assert list(effects_log.read(ws)) == []


@sandboxed
def test_a_change_a_human_recorded_between_the_calls_is_theirs(ws: Path) -> None:
    """Recorded in the ledger by another session (the editor's save, or the terminal's
    ``intent-ls record``) before the next call: neither held nor taken as the agent's."""
    agent = Agent(ws)
    agent.select("INT-APP")
    agent.shell(_lingering(("docs/guide.md", "# Taken over\n")))
    _go_and_wait(ws)
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "record", "docs/guide.md", "--intent", "INT-DOCS",
         "--workspace", str(ws)], capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    _, told = agent.shell("true")
    assert "docs/guide.md" not in told, told
    assert list(effects_log.read(ws)) == [], list(effects_log.read(ws))


@sandboxed
def test_a_change_made_while_another_call_is_under_way_is_that_calls(ws: Path) -> None:
    """The call under way judges every change since its own snapshot: the change is
    judged there, once, not held between the other calls as well."""
    agent = Agent(ws)
    agent.select("INT-APP")
    slow = {"tool_use_id": "slow"}
    pre = agent.hook("PreToolUse", "Bash", {"command": "make"}, **slow)
    assert decision(pre)[0] != "deny"
    agent.shell(_lingering(("docs/guide.md", "# Taken over\n")))
    _go_and_wait(ws)
    _, told = agent.shell("true")
    assert "docs/guide.md" not in told, told
    after = agent.hook("PostToolUse", "Bash", {"command": "make"}, **slow)
    told = str((after.get("hookSpecificOutput") or {}).get("additionalContext"))
    assert "docs/guide.md: out-of-scope, restored" in told, told
    assert (ws / "docs" / "guide.md").read_text() == "# Guide\n"
    guide = [e for e in effects_log.read(ws) if e["path"] == "docs/guide.md"]
    assert [e["action"] for e in guide] == [effects_log.RESTORED]


def _until_ended(ws: Path, session: str) -> None:
    from intent_ls.agents.sandbox import liveness

    deadline = time.monotonic() + 20
    while liveness.living(ws, frozenset({session})):
        assert time.monotonic() < deadline, "the process never ended"
        time.sleep(0.05)


@sandboxed
@pytest.mark.parametrize("other_agent", ["claude-code", "codex"])
def test_what_a_sessions_last_call_left_running_changed_is_judged_as_that_sessions(
    ws: Path, other_agent: str
) -> None:
    """The session that left the process makes no further call: the next call of
    another session judges the change as the first one's once its process has ended,
    rather than taking it as where it starts; the first session, back, sees it judged."""
    first = Agent(ws, session="s1")
    first.select("INT-APP")
    first.shell(_lingering(("src/late.py", "late = 1\n"), ("docs/guide.md", "# Taken over\n")))
    _go_and_wait(ws)
    _until_ended(ws, "s1")
    second = Agent(ws, other_agent, session="s2")
    second.select("INT-DOCS")
    _, told = second.shell("true")
    assert "A process another agent session left running" in told, told
    assert "docs/guide.md: out-of-scope, held" in told
    assert "after claude-code session s1's last tool call" in told
    assert "src/late.py: recorded as claude-code session s1's change" in told
    assert (ws / "docs" / "guide.md").read_text() == "# Taken over\n"
    [held] = [e for e in effects_log.read(ws) if e["path"] == "docs/guide.md"]
    assert held["session"] == "s1" and held["action"] == effects_log.UNRESTORABLE
    [late] = [r for r in records(ws) if r["files"][0]["path"] == "src/late.py"]
    meta = late["metadata"]["intent_ls"]
    assert meta["session_id"] == "s1" and meta["intent_id"] == "INT-APP"
    check = _check(ws)
    assert check.returncode != 0 and "docs/guide.md" in check.stdout
    _, told = second.shell("true")
    assert "docs/guide.md" not in told and "src/late.py" not in told  # judged once
    _, told = first.shell("true")
    assert "docs/guide.md" not in told and "src/late.py" not in told, told


@sandboxed
def test_another_session_leaves_a_process_still_running_to_its_own_session(ws: Path) -> None:
    """While its process lives the first session may still call: its own next call
    judges the change, between its calls, and the other session's call takes none."""
    first = Agent(ws, session="s1")
    first.select("INT-APP")
    first.shell(_lingering(("docs/guide.md", "# Taken over\n"), lives=60))
    _go_and_wait(ws)
    second = Agent(ws, session="s2")
    second.select("INT-DOCS")
    _, told = second.shell("true")
    assert "docs/guide.md" not in told, told
    _, told = first.shell("true")
    assert "Between this session's tool calls" in told and "docs/guide.md" in told, told
    assert Handshake(ws).stop_processes().startswith("Stopped 1 process")


@sandboxed
def test_a_change_this_sessions_process_made_is_not_judged_as_another_sessions(
    ws: Path,
) -> None:
    """Both sessions left a process; the first's ended, the second's wrote: the second
    session judges the change as its own, once, and not as the first's as well."""
    first = Agent(ws, session="s1")
    first.select("INT-APP")
    first.shell(_lingering())
    second = Agent(ws, session="s2")
    second.select("INT-APP")
    second.shell(_lingering(("docs/guide.md", "# Taken over\n"), lives=60))
    _go_and_wait(ws)
    _until_ended(ws, "s1")
    _, told = second.shell("true")
    assert "Between this session's tool calls" in told and "docs/guide.md" in told, told
    assert "another agent session" not in told
    assert [e["session"] for e in effects_log.read(ws) if e["path"] == "docs/guide.md"] == ["s2"]
    assert Handshake(ws).stop_processes().startswith("Stopped 1 process")
