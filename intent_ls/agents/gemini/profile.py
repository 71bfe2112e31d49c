"""Gemini CLI as intent-ls sees it (checked against Gemini CLI 0.61.0)."""

from __future__ import annotations

from intent_ls.agents.profile import AgentProfile, lazy, lazy_value

_HERE = "intent_ls.agents.gemini"
#: Every tool, before and after (as Claude Code's: every tool's effects are judged).
BEFORE = ".*"
AFTER = ".*"

PROFILE = AgentProfile(
    name="gemini",
    label="Gemini CLI",
    parse=lazy(f"{_HERE}.adapter", "parse"),
    render=lazy(f"{_HERE}.adapter", "render"),
    gate_event="BeforeTool",
    install=lazy(f"{_HERE}.install", "install"),
    hooks_file=".gemini/settings.json",
    events={
        "SessionStart": None,
        "BeforeAgent": None,
        "BeforeModel": None,
        "BeforeTool": BEFORE,
        "AfterTool": AFTER,
    },
    timeout_unit=0.001,
    project_vars=("GEMINI_PROJECT_DIR",),
    ask_supported=True,
    # ``hookSpecificOutput.tool_input`` rewrites the command; a fresh shell per command.
    rewrites_commands=True,
    # Gemini CLI 0.61.0 runs a command as ``_bgpids_file=…; ( trap 'jobs -p >
    # "$_bgpids_file"' EXIT; COMMAND )`` and tells the model the background jobs it
    # lists (``wrapCommandForBackgroundPIDs``); under the barrier the command's own
    # shell lists them into that file instead (:func:`intent_ls.agents.barrier.run`).
    jobs_var="_bgpids_file",
    own_rule=lazy(f"{_HERE}.rules", "rule_for"),
    rule_files=lazy(f"{_HERE}.rules", "rule_files"),
    env_markers=("GEMINI_CLI",),
    protected_trees=(".gemini",),
    protected_shown=(".gemini/",),
    home_files=(".gemini/settings.json",),
    command_vars=("GEMINI_PROJECT_DIR",),
    doctor_facts=lazy_value(f"{_HERE}.doctor", "FACTS"),
)
