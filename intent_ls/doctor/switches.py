"""Settings that keep an agent from running any hook, or intent-ls's, where the
workspace and the user's home show them (each agent's own ``doctor`` module knows its
switches; this reports them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents.profile import AgentProfile
from intent_ls.doctor.agent_settings import as_checks
from intent_ls.doctor.report import Check


def switched_off(
    agent: AgentProfile, root: Path, settings: dict[str, Any], hook: Any
) -> list[Check]:
    """Settings that keep the agent from running any hook, or this one, where the
    workspace and the user's home show them."""
    return as_checks(agent.name, "enabled", agent.doctor.switches(root, settings, hook))
