"""OpenCode as intent-ls sees it (checked against OpenCode 1.18.33).

Its hooks are in-process plugins; intent-ls ships one (:mod:`intent_ls.agents.js_plugin`)
that runs ``intent-ls hook opencode`` before and after every tool and throws to refuse
(there is no ask: what needs a human is denied, naming the approval step). Its
``tool.execute.before`` hook changes the tool's arguments in place, so a shell command is
rewritten to run in the sandbox.
"""

from __future__ import annotations

from intent_ls.agents.profile import AgentProfile, lazy, lazy_value

_HERE = "intent_ls.agents.opencode"
#: Its project config: the MCP server (and whatever else the user keeps there).
CONFIG = "opencode.json"
#: What the agent writes as its config's ``$schema`` when the file names none.
SCHEMA = "https://opencode.ai/config.json"

PROFILE = AgentProfile(
    name="opencode",
    label="OpenCode",
    parse=lazy(f"{_HERE}.adapter", "parse"),
    render=lazy("intent_ls.agents.js_plugin.adapter", "render"),
    gate_event="PreToolUse",
    install=lazy(f"{_HERE}.install", "install"),
    # Loaded from the project's plugin folder at start, without a config entry.
    hooks_file=".opencode/plugins/intent-ls.js",
    events=dict.fromkeys(("SessionStart", "PreToolUse", "PostToolUse")),
    timeout_unit=1.0,
    ask_supported=False,
    rewrites_commands=True,
    # Set in its own process (``opencode``'s start), inherited by every command it runs.
    env_markers=("OPENCODE", "OPENCODE_PID"),
    protected_trees=(".opencode",),
    protected_files=(CONFIG, "opencode.jsonc"),
    protected_shown=(".opencode/", CONFIG),
    home_files=(
        ".config/opencode/opencode.json",
        ".config/opencode/opencode.jsonc",
        ".config/opencode/config.json",
    ),
    doctor_facts=lazy_value(f"{_HERE}.doctor", "FACTS"),
)
