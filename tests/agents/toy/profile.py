"""The toy agent's profile."""

from __future__ import annotations

from intent_ls.agents.profile import AgentProfile, lazy, lazy_value

_HERE = "tests.agents.toy"

PROFILE = AgentProfile(
    name="toy",
    label="Toy Agent",
    parse=lazy(f"{_HERE}.adapter", "parse"),
    render=lazy(f"{_HERE}.adapter", "render"),
    gate_event="before",
    install=lazy(f"{_HERE}.install", "install"),
    hooks_file=".toy/hooks.json",
    events={"start": None, "before": None, "after": None},
    timeout_unit=1.0,
    event_key="event",
    project_vars=("TOY_PROJECT_DIR",),
    ask_supported=False,
    env_markers=("TOY_AGENT",),
    protected_trees=(".toy",),
    protected_shown=(".toy/",),
    doctor_facts=lazy_value(f"{_HERE}.doctor", "FACTS"),
)
