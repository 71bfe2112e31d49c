"""Calls that overlap — two agent sessions on one workspace, or one session's parallel
calls — each write intent-ls's own state while the other's call is under way. One
call's after-tool event must not take the other's writes for its call's changes to
protected paths and put them back: a hold logged for the human would be lost, and a
session's state rolled back."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents import sessions
from intent_ls.workspace import effects_log
from tests.agents.conftest import Hook, decision
from tests.agents.effects_helpers import Agent, git_workspace
from tests.support import records


def _agent(ws: Path, session: str) -> Agent:
    agent = Agent(ws)
    agent.hook = Hook(ws, "claude-code", session)
    agent.select("INT-APP")
    return agent


def test_another_sessions_log_entry_made_during_a_call_stays(governed: Path) -> None:
    ws = git_workspace(governed)
    first, second = _agent(ws, "first"), _agent(ws, "second")
    slow = {"tool_use_id": "slow"}
    assert decision(first.hook("PreToolUse", "Bash", {"command": "make"}, **slow))[0] != "deny"
    _, told = second.shell("python3 -c \"open('docs/guide.md', 'w').write('x')\"")
    assert "docs/guide.md: out-of-scope, restored" in told, told
    after = first.hook("PostToolUse", "Bash", {"command": "make"}, **slow)
    told = str((after.get("hookSpecificOutput") or {}).get("additionalContext") or "")
    assert "effects.jsonl" not in told and "agents/" not in told, told
    entries = [(e["session"], e["path"]) for e in effects_log.read(ws)]
    assert entries == [("second", "docs/guide.md")]


def test_a_parallel_calls_record_and_session_state_stay(governed: Path) -> None:
    ws = git_workspace(governed)
    agent = _agent(ws, "s1")
    slow = {"tool_use_id": "slow"}
    assert decision(agent.hook("PreToolUse", "Bash", {"command": "make"}, **slow))[0] != "deny"
    agent.shell("echo 'made = 1' > src/made.py")
    recorded = sessions.read_state(ws, "claude-code", "s1").get("recorded") or {}
    assert "src/made.py" in recorded
    after = agent.hook("PostToolUse", "Bash", {"command": "make"}, **slow)
    told = str((after.get("hookSpecificOutput") or {}).get("additionalContext") or "")
    assert told == "", told
    assert sessions.read_state(ws, "claude-code", "s1").get("recorded") == recorded
    assert [r["files"][0]["path"] for r in records(ws)] == ["src/made.py"]
    assert list(effects_log.read(ws)) == []


def test_the_editors_selection_made_during_a_call_stays(governed: Path) -> None:
    """A human selects an intent in the editor (the language server saves it) while an
    agent's call runs: that call does not put the selection back."""
    from intent_ls.common.local_state import load_selection, save_selection

    ws = git_workspace(governed)
    agent = _agent(ws, "s1")
    slow = {"tool_use_id": "slow"}
    assert decision(agent.hook("PreToolUse", "Bash", {"command": "make"}, **slow))[0] != "deny"
    save_selection(ws, "INT-DOCS", "editor-session")
    after = agent.hook("PostToolUse", "Bash", {"command": "make"}, **slow)
    told = str((after.get("hookSpecificOutput") or {}).get("additionalContext") or "")
    assert "session.json" not in told, told
    assert load_selection(ws) == {"intent_id": "INT-DOCS", "session_id": "editor-session"}
    assert list(effects_log.read(ws)) == []
