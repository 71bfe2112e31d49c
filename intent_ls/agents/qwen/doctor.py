"""Qwen Code's side of ``intent-ls doctor``: how it runs a hook, the settings that
switch every hook off or leave the project's settings unread, and where its MCP server
is configured (and trusted)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents.doctor_facts import DoctorFacts, Finding
from intent_ls.agents.settings_files import load_json, server_in, user_file

SETTINGS = ".qwen/settings.json"
#: Set to the project folder in every hook's environment (Qwen Code 0.24.4 no longer
#: replaces them in a bash hook's command text).
PROJECT_VARS = ("QWEN_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")


def invocation(
    hook: dict[str, Any], project: Path, session: str
) -> tuple[str | list[str], dict[str, str]]:
    """Through ``bash -c`` in the project folder, its project variables set."""
    line = hook.get("command") if isinstance(hook.get("command"), str) else ""
    env = dict.fromkeys(PROJECT_VARS, str(project))
    env["QWEN_CODE_SESSION_ID"] = session
    return line, env


def _user_settings() -> Path:
    return user_file("QWEN_HOME", "~/.qwen", "settings.json")


def _switched_off(path: Path, loaded: Any) -> Finding | None:
    if isinstance(loaded, dict) and loaded.get("disableAllHooks") is True:
        return Finding(
            "fail",
            f"{path} sets `disableAllHooks`: Qwen Code runs no hook.",
            f"remove it from {path}.",
        )
    return None


def _folder_trust(user: Any) -> list[Finding]:
    """With folder trust on, an untrusted project's settings (its hooks, its MCP server)
    are not read at all."""
    security = user.get("security") if isinstance(user, dict) else None
    trust = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(trust, dict) and trust.get("enabled") is True:
        return [
            Finding(
                "note",
                "folder trust is on in your Qwen Code settings: it reads this project's "
                f"{SETTINGS} (the hooks, the MCP server) only once you trust the folder.",
                "trust this folder when Qwen Code asks (or in ~/.qwen/trustedFolders.json).",
            )
        ]
    return []


def switches(root: Path, settings: dict[str, Any], hook: Any) -> list[Finding]:
    user = load_json(_user_settings())
    for path, loaded in ((root / SETTINGS, settings), (_user_settings(), user)):
        found = _switched_off(path, loaded)
        if found is not None:
            return [found]
    return _folder_trust(user)


def mcp_entry(root: Path, settings: dict[str, Any]) -> tuple[str, Any]:
    return server_in(SETTINGS, settings, "mcpServers")


def mcp_notes(entry: dict[str, Any], where: str) -> list[Finding]:
    if entry.get("trust") is True:
        return []
    return [
        Finding(
            "note",
            f'the server has no `"trust": true` in {where}: Qwen Code asks before each of '
            "its tools (and refuses them headless).",
            "run `intent-ls hooks install qwen`.",
        )
    ]


#: Tools standing for "every tool": effects are judged after each (issue 28).
EVERY_TOOL = ("save_memory", "mcp__files__write_file")

FACTS = DoctorFacts(
    tools={
        "PreToolUse": (
            "write_file",
            "edit",
            "run_shell_command",
            "mcp__intent-ls__select_active_intent",
            *EVERY_TOOL,
        ),
        "PostToolUse": ("write_file", "edit", "run_shell_command", "read_file", *EVERY_TOOL),
        "PostToolUseFailure": ("write_file", "edit", "run_shell_command", *EVERY_TOOL),
    },
    write_tool="write_file",
    shell_tool="run_shell_command",
    # Qwen cannot ask headless: a destructive command is denied with the approve step
    # (and any command not in its sandboxed form is denied naming that form).
    held="deny",
    used_here=(".qwen",),
    trust=(
        (
            "MCP approval",
            "outside yolo mode Qwen Code starts a project's MCP server only once approved: "
            "approve intent-ls once with /mcp (again after its entry changes).",
        ),
        (
            "fails open",
            "Qwen Code runs the tool when a hook crashes or outlives its timeout, and has "
            "no switch to block instead: intent-ls's hook refuses on its own before the "
            "timeout, and what a call changes is verified after it (docs/agents.md).",
        ),
    ),
    invocation=invocation,
    switches=switches,
    mcp_entry=mcp_entry,
    mcp_notes=mcp_notes,
)
