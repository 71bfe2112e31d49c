"""The toy's side of ``intent-ls doctor``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.doctor_facts import DoctorFacts, Finding
from intent_ls.agents.settings_files import server_entry


def invocation(
    hook: dict[str, Any], project: Path, session: str
) -> tuple[str | list[str], dict[str, str]]:
    line = hook.get("command") if isinstance(hook.get("command"), str) else ""
    return line, {"TOY_PROJECT_DIR": str(project)}


def switches(root: Path, settings: dict[str, Any], hook: Any) -> list[Finding]:
    if settings.get("hooksOff") is True:
        return [Finding("fail", "hooksOff is set: the toy runs no hook.", "remove hooksOff.")]
    return [Finding("ok", "the toy runs its hooks.")]


def mcp_entry(root: Path, settings: dict[str, Any]) -> tuple[str, Any]:
    servers = settings.get("mcpServers")
    return ".toy/hooks.json", server_entry(servers)


def payload(
    event: str, session: str, project: Path, tool: str, args: dict[str, Any]
) -> dict[str, Any]:
    return {"event": event, "session": session, "dir": str(project), "tool": tool, "args": args}


def write_args(project: Path, rel: str, text: str) -> dict[str, Any]:
    return {"path": str(project / rel), "text": text}


def decision_of(answer: Any) -> tuple[str | None, str]:
    if not isinstance(answer, dict):
        return None, ""
    return answer.get("verdict"), str(answer.get("why") or "")


FACTS = DoctorFacts(
    tools={
        "before": ("save", "sh", f"mcp:{MCP_SERVER}:select_active_intent"),
        "after": ("save", "sh"),
    },
    write_tool="save",
    shell_tool="sh",
    held="deny",
    used_here=(".toy",),
    trust=(("toy trust", "the toy trusts every folder."),),
    invocation=invocation,
    switches=switches,
    mcp_entry=mcp_entry,
    payload=payload,
    write_args=write_args,
    decision_of=decision_of,
)
