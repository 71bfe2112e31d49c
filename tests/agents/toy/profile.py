"""The toy agent's profile."""

from __future__ import annotations

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.profile import AgentProfile, DoctorFacts, lazy

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
    doctor=DoctorFacts(
        tools={
            "before": ("save", "sh", f"mcp:{MCP_SERVER}:select_active_intent"),
            "after": ("save", "sh"),
        },
        write_tool="save",
        shell_tool="sh",
        held="deny",
        used_here=(".toy",),
        trust=(("toy trust", "the toy trusts every folder."),),
        invocation=lazy(f"{_HERE}.doctor", "invocation"),
        switches=lazy(f"{_HERE}.doctor", "switches"),
        mcp_entry=lazy(f"{_HERE}.doctor", "mcp_entry"),
        payload=lazy(f"{_HERE}.doctor", "payload"),
        write_args=lazy(f"{_HERE}.doctor", "write_args"),
        decision_of=lazy(f"{_HERE}.doctor", "decision_of"),
    ),
)
