"""The session start names the environment its shell commands run in, in a few words
(intent_ls/agents/gate/shell_barrier.py): the sandbox, and what a PID namespace costs
where Landlock scopes are missing; the agent's own sandbox; or no sandbox."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from intent_ls.agents import registry
from intent_ls.agents.gate import shell_barrier
from intent_ls.agents.sandbox import environment
from intent_ls.agents.sandbox.environment import Facts

EVENT = SimpleNamespace(agent="claude-code", session_id="s1")


def _note(monkeypatch: pytest.MonkeyPatch, facts: Facts, confined: bool = True) -> str:
    monkeypatch.setattr(shell_barrier, "barrier_available", lambda root, event: facts.works)
    monkeypatch.setattr(environment, "probe", lambda works, with_version: facts)
    profile = registry.get("claude-code")
    if not confined:
        profile = profile._replace(rewrites_commands=False, shell_prefix_var=None)
    return shell_barrier._barrier_text(Path("/w"), EVENT, profile)  # type: ignore[arg-type]


def test_the_sandbox_is_named_with_landlock_scopes(monkeypatch: pytest.MonkeyPatch) -> None:
    said = _note(monkeypatch, Facts(bwrap="/b", works=True, landlock_abi=7))
    assert "runs your shell commands in a sandbox (bubblewrap sandbox, with Landlock" in said
    assert "Background processes end" not in said


def test_a_pid_namespace_says_background_processes_end(monkeypatch: pytest.MonkeyPatch) -> None:
    said = _note(monkeypatch, Facts(bwrap="/b", works=True, landlock_abi=3, uid=0, container=True))
    assert "in a sandbox (root in a container: bubblewrap sandbox" in said
    assert "a PID namespace" in said
    assert "Background processes end with the command that started them here." in said


def test_without_a_sandbox_of_its_own_the_session_hears_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = _note(monkeypatch, Facts(bwrap="/b", works=False, no_new_privs=True))
    assert "intent-ls: shell commands run in the agent's own sandbox" in agent
    none = _note(monkeypatch, Facts(bwrap=None, works=False))
    assert "no sandbox for shell commands (bubblewrap is not installed)" in none
    assert "verified after it ran" in none
    unconfined = _note(monkeypatch, Facts(bwrap="/b", works=True), confined=False)
    assert "intent-ls: no sandbox for shell commands here." in unconfined
