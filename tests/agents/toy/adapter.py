"""The toy's hook JSON: ``{"event": "start"|"before"|"after", "session": …, "dir": …,
"tool": "save"|"sh"|"mcp:intent-ls:<tool>", "args": {…}}`` in; ``{"verdict": …,
"why": …}`` before a tool, ``{"note": …}`` otherwise, out."""

from __future__ import annotations

from typing import Any

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.events import (
    Decision,
    FileChange,
    HookEvent,
    Outcome,
    Phase,
    ToolCall,
    ToolKind,
    text_of,
)

PHASES = {"start": Phase.SESSION_START, "before": Phase.BEFORE_TOOL, "after": Phase.AFTER_TOOL}
OWN = f"mcp:{MCP_SERVER}:"


def tool_call(name: str, args: dict[str, Any]) -> ToolCall:
    if name == "save":
        path = text_of(args.get("path"))
        if path is None:
            return ToolCall(ToolKind.WRITE, name, problem="save names no path")
        return ToolCall(ToolKind.WRITE, name, (FileChange(path, text_of(args.get("text"))),))
    if name == "sh":
        return ToolCall(ToolKind.SHELL, name, command=text_of(args.get("command")) or "")
    if name.startswith(OWN):
        return ToolCall(ToolKind.OWN_MCP, name, mcp_tool=name[len(OWN) :], arguments=args)
    return ToolCall(ToolKind.OTHER, name)


def parse(payload: dict[str, Any]) -> HookEvent:
    phase = PHASES.get(str(payload.get("event")), Phase.OTHER)
    args = payload.get("args")
    tool = None
    if phase in (Phase.BEFORE_TOOL, Phase.AFTER_TOOL):
        tool = tool_call(str(payload.get("tool") or ""), args if isinstance(args, dict) else {})
    return HookEvent(
        agent="toy",
        phase=phase,
        session_id=str(payload.get("session") or "none"),
        cwd=text_of(payload.get("dir")) or "",
        model=text_of(payload.get("model")),
        tool=tool,
    )


def render(event_name: str, outcome: Outcome) -> dict[str, Any]:
    if event_name == "before":
        if outcome.decision is Decision.PASS:
            return {}
        decision = Decision.DENY if outcome.decision is Decision.ASK else outcome.decision
        return {"verdict": decision.value, "why": outcome.reason}
    return {"note": outcome.context} if outcome.context else {}
