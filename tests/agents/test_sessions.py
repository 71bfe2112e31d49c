"""The per-session state file: rewritten in place under its lock, never left longer than
its JSON, and not rewritten at all when nothing changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

from intent_ls.agents import sessions
from intent_ls.agents.events import HookEvent, Phase
from intent_ls.agents.gate.shell_barrier import barrier_available
from intent_ls.agents.sandbox.availability import KEY as AVAILABLE


def test_a_smaller_state_leaves_exactly_its_json(tmp_path: Path) -> None:
    with sessions.updating(tmp_path, "claude-code", "s") as state:
        state["seen"] = {f"src/{n}.py": "sha256:" + "0" * 64 for n in range(50)}
    with sessions.updating(tmp_path, "claude-code", "s") as state:
        state["seen"] = {"src/a.py": None}
    path = sessions.state_path(tmp_path, "claude-code", "s")
    assert json.loads(path.read_bytes()) == {"seen": {"src/a.py": None}}
    assert sessions.read_state(tmp_path, "claude-code", "s") == {"seen": {"src/a.py": None}}


def test_an_unchanged_state_is_not_rewritten(tmp_path: Path) -> None:
    with sessions.updating(tmp_path, "codex", "s") as state:
        state["intent_id"] = "INT-1"
    path = sessions.state_path(tmp_path, "codex", "s")
    before = os.stat(path)
    with sessions.updating(tmp_path, "codex", "s") as state:
        assert state == {"intent_id": "INT-1"}
    assert os.stat(path).st_ctime_ns == before.st_ctime_ns


def test_whether_the_barrier_can_be_set_up_is_tried_once_per_session(tmp_path: Path) -> None:
    event = HookEvent("claude-code", Phase.BEFORE_TOOL, "s", str(tmp_path))
    found = barrier_available(tmp_path, event)
    assert sessions.read_state(tmp_path, "claude-code", "s")[AVAILABLE] is found
    with sessions.updating(tmp_path, "claude-code", "s") as state:
        state[AVAILABLE] = not found  # what the session's state says is what is used
    assert barrier_available(tmp_path, event) is (not found)
