"""The registry of agents and the profiles it lists: the CLI's names are a contract, and
each profile is whole (its gate is one of its events, doctor expects tools on events it
installs, its settings are among the paths no agent may change)."""

from __future__ import annotations

import pytest

from intent_ls.agents import registry
from intent_ls.agents.effects.protected_set import is_protected_rel
from intent_ls.agents.events import Decision, Outcome
from intent_ls.agents.hook import refusal
from tests.agents.toy.profile import PROFILE as TOY


def test_the_cli_names_are_the_registrys() -> None:
    assert registry.names() == (
        "claude-code",
        "codex",
        "gemini",
        "copilot",
        "qwen",
        "opencode",
        "kilo",
    )
    assert [p.name for p in registry.profiles()] == list(registry.names())


@pytest.mark.parametrize("name", registry.names())
def test_each_profile_is_whole(name: str) -> None:
    profile = registry.get(name)
    assert profile.gate_event in profile.events
    assert set(profile.doctor.tools) <= set(profile.events)
    assert profile.doctor.held == ("ask" if profile.ask_supported else "deny")
    assert profile.hooks_file.startswith(tuple(f"{f}/" for f in profile.doctor.used_here))
    assert is_protected_rel(profile.hooks_file)
    assert profile.protected_shown and profile.env_markers
    assert profile.parse({profile.event_key: profile.gate_event, "session_id": "s"}).agent == name


@pytest.mark.parametrize("name", registry.names())
def test_a_refusal_is_in_the_agents_own_shape(name: str) -> None:
    profile = registry.get(name)
    denied = profile.render(profile.gate_event, Outcome(Decision.DENY, "no"))
    assert refusal(name, "", "no") == denied != {}
    assert "no" in str(denied)


def test_a_registered_agent_is_listed_until_unregistered() -> None:
    registry.register(TOY)
    try:
        assert registry.names()[-1] == "toy" and registry.get("toy") is TOY
        assert is_protected_rel(".toy/hooks.json")
        assert "TOY_AGENT" in registry.env_markers()
    finally:
        registry.unregister("toy")
    assert "toy" not in registry.names() and not is_protected_rel(".toy/hooks.json")
    with pytest.raises(KeyError):
        registry.get("toy")


def test_a_built_in_agent_cannot_be_replaced() -> None:
    with pytest.raises(ValueError, match="built-in"):
        registry.register(TOY._replace(name="codex"))
