"""Claude Code as intent-ls sees it (checked against Claude Code 2.1.197)."""

from __future__ import annotations

from intent_ls.agents.claude_code.shell_prefix import NAME, PREFIX_VAR, SESSION_VAR
from intent_ls.agents.profile import AgentProfile, lazy, lazy_value

_HERE = "intent_ls.agents.claude_code"
#: Every tool, before and after: the writes and the shell are judged before they run,
#: our own MCP tools answered ``allow``, and every tool's effects are judged after it
#: (``MultiEdit``, another MCP server's write tool, whatever a new release adds), which
#: needs the state before it too. Tools known to only read keep no state
#: (:data:`intent_ls.agents.hook_json.READ_ONLY_TOOLS`).
BEFORE = ".*"
AFTER = ".*"

PROFILE = AgentProfile(
    name=NAME,
    label="Claude Code",
    parse=lazy(f"{_HERE}.adapter", "parse"),
    render=lazy(f"{_HERE}.adapter", "render"),
    gate_event="PreToolUse",
    install=lazy(f"{_HERE}.install", "install"),
    hooks_file=".claude/settings.json",
    events={
        "SessionStart": None,
        "UserPromptSubmit": None,
        "PreToolUse": BEFORE,
        "PostToolUse": AFTER,
    },
    timeout_unit=1.0,
    project_vars=("CLAUDE_PROJECT_DIR",),
    ask_supported=True,
    # No rewrite: every shell command runs through ``CLAUDE_CODE_SHELL_PREFIX``, the
    # sandbox's prefix, after Claude Code checked its own permissions on the command as
    # the model wrote it (:mod:`intent_ls.agents.sandbox.prefix`).
    shell_prefix_var=PREFIX_VAR,
    session_var=SESSION_VAR,
    unattended_modes=frozenset({"bypassPermissions", "auto"}),
    model_env="ANTHROPIC_MODEL",
    env_markers=("CLAUDECODE", "CLAUDE_CODE_SESSION_ID"),
    protected_files=(".mcp.json", ".claude/settings.json", ".claude/settings.local.json"),
    protected_globs=(".claude/settings*.json",),
    protected_shown=(".claude/settings*.json", ".mcp.json"),
    home_files=(".claude/settings.json", ".claude/settings.local.json"),
    command_vars=("CLAUDE_PROJECT_DIR",),
    # Claude Code >= 2.1.295 blocks the tool call when the hook cannot start, times out
    # or fails; earlier releases ignore the field (they fail open: docs/agents.md).
    hook_fields={"onFailure": "block"},
    doctor_facts=lazy_value(f"{_HERE}.doctor", "FACTS"),
)
