"""The PreToolUse/PostToolUse hook JSON ⇄ the event model: the format Claude Code
defined and others speak with tools of their own (Codex CLI; Qwen Code and Copilot
CLI's PascalCase events are next).

In: ``hook_event_name`` (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse),
``session_id``, ``cwd``, ``transcript_path``, ``tool_name``, ``tool_input``. Out:
``hookSpecificOutput`` with ``permissionDecision`` (+ reason) before a tool, and
``additionalContext`` at session start, on a prompt and after a tool.

:func:`tool_call` reads the tools this format was made for (``Write``, ``Edit``,
``NotebookEdit``, ``Bash``, ``Read``, MCP tools named ``mcp__<server>__<tool>``); an
agent with other tools passes its own reader to :func:`parse`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
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

GATE = "PreToolUse"
PHASES = {
    "SessionStart": Phase.SESSION_START,
    "UserPromptSubmit": Phase.PROMPT,
    GATE: Phase.BEFORE_TOOL,
    "PostToolUse": Phase.AFTER_TOOL,
}
#: The events whose answer may carry ``additionalContext``.
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse")
OWN_PREFIX = f"mcp__{MCP_SERVER}__"
#: Tools that write the file their ``file_path`` (``notebook_path``) names.
WRITE_TOOLS = ("Write", "Edit", "NotebookEdit", "MultiEdit")

#: Tools that change no file (their calls keep no state to compare after them).
READ_ONLY_TOOLS = frozenset(["Glob", "Grep", "LS", "WebFetch", "WebSearch", "TodoWrite"])

ToolReader = Callable[[str, dict[str, Any]], ToolCall]


def replace(before: str, after: str, every: bool, text: str | None) -> str | None:
    """A string-replacing edit applied to the disk text; None when it does not apply."""
    if text is None or before not in text:
        return None
    return text.replace(before, after) if every else text.replace(before, after, 1)


def unreadable(name: str, args: dict[str, Any], keys: tuple[str, ...]) -> ToolCall:
    """A write tool whose input has no string path where the tool keeps it."""
    found = ", ".join(sorted(k for k in args if isinstance(k, str))[:8]) or "nothing"
    return ToolCall(
        ToolKind.WRITE,
        name,
        problem=f"{name}'s input has no string {' or '.join(keys)} (it has {found})",
    )


def _write(name: str, path: str, args: dict[str, Any]) -> ToolCall:
    return ToolCall(ToolKind.WRITE, name, (FileChange(path, text_of(args.get("content"))),))


def _edit(name: str, path: str, args: dict[str, Any]) -> ToolCall:
    before, after = text_of(args.get("old_string")), text_of(args.get("new_string"))
    transform = None
    if before and after is not None:
        transform = functools.partial(replace, before, after, bool(args.get("replace_all")))
    return ToolCall(ToolKind.WRITE, name, (FileChange(path, None, transform),))


def _whole_file(kind: ToolKind) -> Callable[[str, str, dict[str, Any]], ToolCall]:
    return lambda name, path, args: ToolCall(kind, name, (FileChange(path),))


#: Tools that name one file, read by what they do with it.
_FILE_TOOLS: dict[str, Callable[[str, str, dict[str, Any]], ToolCall]] = {
    "Write": _write,
    "Edit": _edit,
    "NotebookEdit": _whole_file(ToolKind.WRITE),
    "Read": _whole_file(ToolKind.READ),
}


def tool_call(name: str, args: dict[str, Any]) -> ToolCall:
    path = text_of(args.get("file_path")) or text_of(args.get("notebook_path"))
    if name in WRITE_TOOLS and path is None:
        return unreadable(name, args, ("file_path", "notebook_path"))
    if name in _FILE_TOOLS and path is not None:
        return _FILE_TOOLS[name](name, path, args)
    if name == "Bash":
        from intent_ls.agents.barrier import unwrap

        command = unwrap(text_of(args.get("command")) or "")
        return ToolCall(ToolKind.SHELL, name, command=command, arguments=args)
    if name.startswith(OWN_PREFIX):
        return ToolCall(ToolKind.OWN_MCP, name, mcp_tool=name[len(OWN_PREFIX) :], arguments=args)
    return ToolCall(ToolKind.READ if name in READ_ONLY_TOOLS else ToolKind.OTHER, name)


def parse(payload: dict[str, Any], agent: str, tools: ToolReader = tool_call) -> HookEvent:
    phase = PHASES.get(str(payload.get("hook_event_name")), Phase.OTHER)
    tool = None
    if phase in (Phase.BEFORE_TOOL, Phase.AFTER_TOOL):
        args = payload.get("tool_input")
        tool = tools(str(payload.get("tool_name") or ""), args if isinstance(args, dict) else {})
    return HookEvent(
        agent=agent,
        phase=phase,
        session_id=str(payload.get("session_id") or "none"),
        cwd=text_of(payload.get("cwd")) or "",
        model=text_of(payload.get("model")),
        tool=tool,
        transcript_path=text_of(payload.get("transcript_path")),
        tool_id=text_of(payload.get("tool_use_id")) or text_of(payload.get("call_id")),
        permission_mode=text_of(payload.get("permission_mode")),
    )


def specific(event_name: str, key: str, value: object) -> dict[str, Any]:
    """``{"hookSpecificOutput": {"hookEventName": …, key: value}}``: how this format (and
    Gemini CLI's, for context and rewritten input) answers with one field."""
    return {"hookSpecificOutput": {"hookEventName": event_name, key: value}}


def context(event_name: str, outcome: Outcome, events: tuple[str, ...]) -> dict[str, Any]:
    """The outcome's context for the model, on the events that can carry it."""
    if outcome.context and event_name in events:
        return specific(event_name, "additionalContext", outcome.context)
    return {}


def render(event_name: str, outcome: Outcome, *, ask_supported: bool = True) -> dict[str, Any]:
    if event_name == GATE:
        return _before_tool(event_name, outcome, ask_supported)
    return context(event_name, outcome, CONTEXT_EVENTS)


def _before_tool(event_name: str, outcome: Outcome, ask_supported: bool) -> dict[str, Any]:
    if outcome.decision is Decision.PASS and outcome.updated_input is not None:
        # No decision: the agent's own permission rules still apply to the command.
        return specific(event_name, "updatedInput", outcome.updated_input)
    if outcome.decision is Decision.PASS:
        return {}
    decision = outcome.decision
    if decision is Decision.ASK and not ask_supported:
        decision = Decision.DENY
    out: dict[str, Any] = {"hookEventName": event_name, "permissionDecision": decision.value}
    if outcome.reason:
        out["permissionDecisionReason"] = outcome.reason
    if outcome.updated_input is not None and decision is not Decision.DENY:
        out["updatedInput"] = outcome.updated_input
    return {"hookSpecificOutput": out}
