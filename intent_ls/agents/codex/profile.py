"""Codex CLI as intent-ls sees it (checked against Codex CLI 0.169.0)."""

from __future__ import annotations

from intent_ls.agents.profile import AgentProfile, DoctorFacts, lazy

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
    env_markers=("CODEX_THREAD_ID", "CODEX_TOOL_CALL_ID", "CODEX_CI"),
    protected_trees=(".codex",),
    protected_shown=(".codex/",),
    home_files=(".codex/config.toml", ".codex/hooks.json"),
    doctor=DoctorFacts(
        tools={
            "PreToolUse": ("apply_patch", "Bash", "mcp__intent_ls__select_active_intent"),
            "PostToolUse": ("apply_patch", "Bash"),
        },
        write_tool="apply_patch",
        shell_tool="Bash",
        held="deny",
        used_here=(".codex",),
        trust=(
            (
                "hook trust",
                "Codex skips project hooks it was not told to trust, silently: review and "
                "trust them once with /hooks in the Codex TUI (again after they change).",
            ),
            (
                "project trust",
                "Codex reads .codex/config.toml only in a trusted project: trust it when "
                'Codex asks, or set [projects."<this folder>"] trust_level = "trusted" in '
                "~/.codex/config.toml.",
            ),
        ),
        invocation=lazy(f"{_HERE}.doctor", "invocation"),
        switches=lazy(f"{_HERE}.doctor", "switches"),
        mcp_entry=lazy(f"{_HERE}.doctor", "mcp_entry"),
        write_args=lazy(f"{_HERE}.doctor", "write_args"),
        payload_extra={"model": "intent-ls-doctor"},
    ),
)
