"""Claude Code's side of ``intent-ls doctor``: how it runs a hook, the settings that
switch every hook off, and where its MCP server is configured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.doctor_facts import DoctorFacts, Finding
from intent_ls.agents.settings_files import load_json, server_in, user_file

PROJECT_VAR = "CLAUDE_PROJECT_DIR"
MCP_FILE = ".mcp.json"


def invocation(
    hook: dict[str, Any], project: Path, session: str
) -> tuple[str | list[str], dict[str, str]]:
    """Through ``bash -c`` in the project folder with ``CLAUDE_PROJECT_DIR`` set; an entry
    with ``args`` runs without a shell, ``${CLAUDE_PROJECT_DIR}`` substituted."""
    line = hook.get("command") if isinstance(hook.get("command"), str) else ""
    env = {PROJECT_VAR: str(project)}
    args = hook.get("args")
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        return [w.replace("${" + PROJECT_VAR + "}", str(project)) for w in [line, *args]], env
    return line, env


def _settings_files(root: Path) -> tuple[Path, ...]:
    """Claude Code's settings, the one that wins first."""
    return (
        root / ".claude/settings.local.json",
        root / ".claude/settings.json",
        user_file("CLAUDE_CONFIG_DIR", "~/.claude", "settings.json"),
    )


def _shell_prefix(root: Path) -> list[Finding]:
    """Whether Claude Code runs its shell commands through the sandbox's prefix."""
    import shutil

    from intent_ls.agents.claude_code.profile import PROFILE

    var = str(PROFILE.shell_prefix_var)
    for path in _settings_files(root):
        env = load_json(path).get("env") if isinstance(load_json(path), dict) else None
        value = env.get(var) if isinstance(env, dict) else None
        if value is None:
            continue
        if "intent-ls-sandbox" in str(value) and shutil.which(str(value)):
            return [Finding("ok", f"shell commands run in the sandbox ({path}: {var}={value})")]
        return [
            Finding(
                "fail",
                f"{path} sets {var}={value!r}: shell commands do not run in intent-ls's "
                "sandbox" + ("" if shutil.which(str(value)) else " (the program is not found)"),
                "run `intent-ls hooks install claude-code` (and put intent-ls-sandbox on PATH).",
            )
        ]
    return [
        Finding(
            "fail",
            f"no settings file sets {var}: shell commands run outside intent-ls's sandbox.",
            "run `intent-ls hooks install claude-code`.",
        )
    ]


def switches(root: Path, settings: dict[str, Any], hook: Any) -> list[Finding]:
    return _hooks_switched_off(root) or _shell_prefix(root)


def _hooks_switched_off(root: Path) -> list[Finding]:
    for path in _settings_files(root):
        loaded = load_json(path)
        if isinstance(loaded, dict) and loaded.get("disableAllHooks") is True:
            return [
                Finding(
                    "fail",
                    f"{path} sets `disableAllHooks`: Claude Code runs no hook.",
                    f"remove `disableAllHooks` from {path}.",
                )
            ]
    return []


def mcp_entry(root: Path, settings: dict[str, Any]) -> tuple[str, Any]:
    return server_in(MCP_FILE, load_json(root / MCP_FILE), "mcpServers")


#: Tools standing for "every tool": effects are judged after each (issue 28).
EVERY_TOOL = ("MultiEdit", "mcp__files__write_file")

FACTS = DoctorFacts(
    tools={
        "PreToolUse": (
            "Write",
            "Edit",
            "NotebookEdit",
            "Bash",
            f"mcp__{MCP_SERVER}__select_active_intent",
            *EVERY_TOOL,
        ),
        "PostToolUse": ("Write", "Edit", "NotebookEdit", "Bash", "Read", *EVERY_TOOL),
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
    invocation=invocation,
    switches=switches,
    mcp_entry=mcp_entry,
    payload_extra={"permission_mode": "default"},
    mcp_expands=("CLAUDE_PROJECT_DIR",),
    mcp_env=("CLAUDE_PROJECT_DIR",),
)
