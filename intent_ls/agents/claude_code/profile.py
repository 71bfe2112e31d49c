"""Claude Code as intent-ls sees it (checked against Claude Code 2.1.197)."""

from __future__ import annotations

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.profile import AgentProfile, DoctorFacts, lazy

_HERE = "intent_ls.agents.claude_code"
#: Before a tool: the writes, the shell, and our own MCP tools (answered ``allow``).
#: After a tool: the writes and the shell (recorded) and reads (what the session saw).
#: Every other tool call costs no hook process.
BEFORE = "Write|Edit|NotebookEdit|Bash|mcp__intent-ls__.*"
AFTER = "Write|Edit|NotebookEdit|Bash|Read"

PROFILE = AgentProfile(
    name="claude-code",
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
    # ``updatedInput`` rewrites the command; its shell persists, so a ``cd`` carries over.
    rewrites_commands=True,
    shell_persists=True,
    # It matches its permission rules on the rewritten command: the hook applies them
    # to the command as written (:mod:`intent_ls.agents.claude_code.rules`).
    user_rules=lazy(f"{_HERE}.rules", "user_rules"),
    unattended_modes=frozenset({"bypassPermissions", "auto"}),
    model_env="ANTHROPIC_MODEL",
    env_markers=("CLAUDECODE", "CLAUDE_CODE_SESSION_ID"),
    protected_files=(".mcp.json", ".claude/settings.json", ".claude/settings.local.json"),
    protected_globs=(".claude/settings*.json",),
    protected_shown=(".claude/settings*.json", ".mcp.json"),
    home_files=(".claude/settings.json", ".claude/settings.local.json"),
    command_vars=("CLAUDE_PROJECT_DIR",),
    doctor=DoctorFacts(
        tools={
            "PreToolUse": (
                "Write",
                "Edit",
                "NotebookEdit",
                "Bash",
                f"mcp__{MCP_SERVER}__select_active_intent",
            ),
            "PostToolUse": ("Write", "Edit", "NotebookEdit", "Bash", "Read"),
        },
        write_tool="Write",
        shell_tool="Bash",
        held="ask",
        used_here=(".claude", ".mcp.json"),
        trust=(
            (
                "folder trust",
                "an interactive session runs this folder's hooks only once you trust the "
                "folder (Claude Code asks at the first start here); `claude -p` runs them "
                "regardless.",
            ),
            (
                "MCP approval",
                "approve the project MCP server intent-ls from .mcp.json once when Claude "
                "Code asks; `/mcp` then shows it connected and `/hooks` lists the intent-ls "
                "hooks.",
            ),
        ),
        invocation=lazy(f"{_HERE}.doctor", "invocation"),
        switches=lazy(f"{_HERE}.doctor", "switches"),
        mcp_entry=lazy(f"{_HERE}.doctor", "mcp_entry"),
        payload_extra={"permission_mode": "default"},
        mcp_expands=("CLAUDE_PROJECT_DIR",),
        mcp_env=("CLAUDE_PROJECT_DIR",),
    ),
)
