"""Codex CLI as intent-ls sees it (checked against Codex CLI 0.169.0)."""

from __future__ import annotations

from intent_ls.agents.profile import AgentProfile, lazy, lazy_value

_HERE = "intent_ls.agents.codex"
#: Its project configuration (hooks feature switch, MCP servers).
CONFIG = ".codex/config.toml"

PROFILE = AgentProfile(
    name="codex",
    label="Codex CLI",
    parse=lazy(f"{_HERE}.adapter", "parse"),
    render=lazy(f"{_HERE}.adapter", "render"),
    gate_event="PreToolUse",
    install=lazy(f"{_HERE}.install", "install"),
    hooks_file=".codex/hooks.json",
    events=dict.fromkeys(("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse")),
    timeout_unit=1.0,
    # Codex ignores ``ask`` (the tool would run): what needs a human is denied.
    ask_supported=False,
    # ``updatedInput`` beside ``allow``; a fresh shell per command.
    rewrites_commands=True,
    own_rule=lazy(f"{_HERE}.rules", "own_rule"),
    rule_files=lazy(f"{_HERE}.rules", "rule_files"),
    env_markers=("CODEX_THREAD_ID", "CODEX_TOOL_CALL_ID", "CODEX_CI"),
    protected_trees=(".codex",),
    protected_shown=(".codex/",),
    home_files=(".codex/config.toml", ".codex/hooks.json"),
    doctor_facts=lazy_value(f"{_HERE}.doctor", "FACTS"),
)
