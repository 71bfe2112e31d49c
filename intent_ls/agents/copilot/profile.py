"""GitHub Copilot CLI as intent-ls sees it (checked against Copilot CLI 1.0.92 and 1.0.102)."""

from __future__ import annotations

from intent_ls.agents.profile import AgentProfile, lazy, lazy_value

_HERE = "intent_ls.agents.copilot"
#: Every tool, before and after (as Claude Code's: every tool's effects are judged).
BEFORE = ".*"
AFTER = ".*"
#: intent-ls's own hooks file among the repository's ``.github/hooks/*.json`` (Copilot
#: CLI reads every file there; the user's own files are never touched).
HOOKS_FILE = ".github/hooks/intent-ls.json"
#: Where it reads the workspace's MCP servers (it reads ``.mcp.json`` too).
MCP_FILE = ".github/mcp.json"

PROFILE = AgentProfile(
    name="copilot",
    label="GitHub Copilot CLI",
    parse=lazy(f"{_HERE}.adapter", "parse"),
    render=lazy(f"{_HERE}.adapter", "render"),
    gate_event="PreToolUse",
    install=lazy(f"{_HERE}.install", "install"),
    hooks_file=HOOKS_FILE,
    # PascalCase names: the payloads and answers of Claude Code's format
    # (:mod:`.adapter`). A tool that failed gets PostToolUseFailure, not PostToolUse.
    events={
        "SessionStart": None,
        "UserPromptSubmit": None,
        "PreToolUse": BEFORE,
        "PostToolUse": AFTER,
        "PostToolUseFailure": AFTER,
    },
    timeout_unit=1.0,
    # Set in every hook's environment (with CLAUDE_PROJECT_DIR and COPILOT_CLI=1).
    project_vars=("COPILOT_PROJECT_DIR",),
    ask_supported=True,
    # ``updatedInput`` replaces the command; each command runs in a fresh process.
    rewrites_commands=True,
    model_env="COPILOT_MODEL",
    env_markers=("COPILOT_CLI", "COPILOT_AGENT_SESSION_ID"),
    # Globs, not trees: a protected tree is a top-level folder, and ``.github`` holds the
    # repository's own workflows. The sandbox keeps the hooks folder read-only whole.
    protected_files=(MCP_FILE,),
    protected_globs=(".github/hooks/*", ".github/copilot/*"),
    protected_shown=(".github/hooks/", ".github/copilot/", MCP_FILE),
    home_files=(".copilot/config.json", ".copilot/settings.json", ".copilot/mcp-config.json"),
    command_vars=("COPILOT_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
    # It runs Claude Code's project hooks too (``.claude/settings.json``, after its own,
    # in one sequence: the first deny wins), giving them its own payloads: intent-ls's
    # Claude Code hook, run by it, answers as this agent (:mod:`intent_ls.agents.hosted`).
    # Its hooks' environment alone has COPILOT_PROJECT_DIR (its shell commands get
    # COPILOT_CLI too, so a Claude Code started from one is not taken for it).
    runs_hooks_of=("claude-code",),
    hook_marker="COPILOT_PROJECT_DIR",
    doctor_facts=lazy_value(f"{_HERE}.doctor", "FACTS"),
)
