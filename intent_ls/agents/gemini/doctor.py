"""Gemini CLI's side of ``intent-ls doctor``: how it runs a hook, ``hooksConfig``, where
its MCP server is configured (and trusted), and the shape of its answers."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.doctor_facts import DoctorFacts, Finding
from intent_ls.agents.settings_files import load_json, server_entry, user_file

#: Replaced in a hook's command text and set in its environment.
PROJECT_VARS = ("GEMINI_PROJECT_DIR", "GEMINI_CWD", "CLAUDE_PROJECT_DIR")


def invocation(
    hook: dict[str, Any], project: Path, session: str
) -> tuple[str | list[str], dict[str, str]]:
    """Through ``bash -c`` in the project folder, with ``$GEMINI_PROJECT_DIR``,
    ``$GEMINI_CWD`` and ``$CLAUDE_PROJECT_DIR`` replaced in the text and set in the
    environment."""
    line = hook.get("command") if isinstance(hook.get("command"), str) else ""
    quoted = shlex.quote(str(project))
    env = {}
    for name in PROJECT_VARS:
        line = line.replace(f"${name}", quoted)
        env[name] = str(project)
    env["GEMINI_SESSION_ID"] = session
    return line, env


def _hooks_config(path: Path, loaded: Any, hook_name: Any) -> Finding | None:
    config = loaded.get("hooksConfig") if isinstance(loaded, dict) else None
    if not isinstance(config, dict):
        return None
    if config.get("enabled") is False:
        return Finding(
            "fail",
            f"{path} sets `hooksConfig.enabled` to false: Gemini CLI runs no hook.",
            f"remove it from {path}.",
        )
    disabled = config.get("disabled")
    if hook_name and isinstance(disabled, list) and hook_name in disabled:
        return Finding(
            "fail",
            f"{path} lists the intent-ls hook in `hooksConfig.disabled`.",
            f"remove it from that list in {path}.",
        )
    return None


def switches(root: Path, settings: dict[str, Any], hook: Any) -> list[Finding]:
    hook_name = hook.get("name") or hook.get("command") if isinstance(hook, dict) else None
    user = user_file("GEMINI_CLI_HOME", "~", ".gemini", "settings.json")
    for path, loaded in ((root / ".gemini/settings.json", settings), (user, load_json(user))):
        found = _hooks_config(path, loaded, hook_name)
        if found is not None:
            return [found]
    return []


def mcp_entry(root: Path, settings: dict[str, Any]) -> tuple[str, Any]:
    servers = settings.get("mcpServers")
    return ".gemini/settings.json", server_entry(servers)


def mcp_notes(entry: dict[str, Any], where: str) -> list[Finding]:
    if entry.get("trust") is True:
        return []
    return [
        Finding(
            "note",
            f'the server has no `"trust": true` in {where}: Gemini CLI asks before each '
            "of its tools.",
            "run `intent-ls hooks install gemini`.",
        )
    ]


def decision_of(answer: Any) -> tuple[str | None, str]:
    if not isinstance(answer, dict):
        return None, ""
    return answer.get("decision"), str(answer.get("reason", ""))


#: Tools standing for "every tool": effects are judged after each (issue 28).
EVERY_TOOL = ("save_memory", "mcp_files_write_file")

FACTS = DoctorFacts(
    tools={
        "BeforeTool": (
            "write_file",
            "replace",
            "run_shell_command",
            f"mcp_{MCP_SERVER}_select_active_intent",
            *EVERY_TOOL,
        ),
        "AfterTool": ("write_file", "replace", "run_shell_command", "read_file", *EVERY_TOOL),
    },
    write_tool="write_file",
    shell_tool="run_shell_command",
    held="ask",
    used_here=(".gemini",),
    trust=(
        (
            "folder trust",
            "Gemini CLI runs project hooks only in a trusted folder: trust this folder "
            "when it asks (/permissions), and accept its warning listing the project "
            "hooks.",
        ),
    ),
    invocation=invocation,
    switches=switches,
    mcp_entry=mcp_entry,
    mcp_notes=mcp_notes,
    decision_of=decision_of,
    regex_matchers=True,
    mcp_env=("CLAUDE_PROJECT_DIR",),
)
