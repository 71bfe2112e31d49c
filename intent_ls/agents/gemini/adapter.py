"""Gemini CLI's hook JSON ⇄ the event model.

In: ``hook_event_name`` (SessionStart, BeforeAgent, BeforeModel, BeforeTool, AfterTool),
``session_id``, ``cwd``, ``transcript_path``, ``tool_name``, ``tool_input``, and for MCP
tools ``mcp_context`` (``server_name``, ``tool_name``). The model id appears only in
BeforeModel's ``llm_request.model``, so that event stores it in the session state for
the records. Out: ``{"decision": "allow"|"ask"|"deny", "reason": …}`` before a tool,
``hookSpecificOutput.additionalContext`` at session start and before the agent runs.

A shell command let through is rewritten to run under the write barrier
(:mod:`.barrier`): ``hookSpecificOutput.tool_input`` replaces the tool's arguments
(checked in Gemini CLI 0.61.0, which re-validates them and tells the model they were
modified). AfterTool then reports the rewritten command, which is read back as the
agent's own. Gemini judges its policy rules on the rewritten command, so a command
whose rewrite would defeat one of them is left as written (:mod:`.agent_rules`).
"""

from __future__ import annotations

from typing import Any

from intent_ls.agents import MCP_SERVER, hook_json
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

AGENT = "gemini"
ASK_SUPPORTED = True
PHASES = {
    "SessionStart": Phase.SESSION_START,
    "BeforeAgent": Phase.PROMPT,
    "BeforeModel": Phase.BEFORE_MODEL,
    "BeforeTool": Phase.BEFORE_TOOL,
    "AfterTool": Phase.AFTER_TOOL,
}
_OWN_PREFIX = f"mcp_{MCP_SERVER}_"


def _own_tool(name: str, args: dict[str, Any], mcp: dict[str, Any] | None) -> ToolCall | None:
    """One of intent-ls's own MCP tools, by the server Gemini says it came from or by
    its name."""
    if mcp and mcp.get("server_name") == MCP_SERVER:
        own = text_of(mcp.get("tool_name")) or name
        return ToolCall(ToolKind.OWN_MCP, name, mcp_tool=own, arguments=args)
    if name.startswith(_OWN_PREFIX):
        return ToolCall(ToolKind.OWN_MCP, name, mcp_tool=name[len(_OWN_PREFIX) :], arguments=args)
    return None


def _write_file(name: str, path: str, args: dict[str, Any]) -> ToolCall:
    return ToolCall(ToolKind.WRITE, name, (FileChange(path, text_of(args.get("content"))),))


def _replace(name: str, path: str, args: dict[str, Any]) -> ToolCall:
    from intent_ls.agents.hook_json import replace

    before, after = text_of(args.get("old_string")), text_of(args.get("new_string"))
    count = args.get("expected_replacements")
    every = isinstance(count, int) and count > 1
    change = FileChange(path)
    if before and after is not None:
        change = FileChange(path, None, lambda text: replace(before, after, every, text))
    return ToolCall(ToolKind.WRITE, name, (change,))


def _read(name: str, path: str, args: dict[str, Any]) -> ToolCall:
    return ToolCall(ToolKind.READ, name, (FileChange(path),))


#: Tools that name one file, read by what they do with it.
_FILE_TOOLS = {
    "write_file": _write_file,
    "replace": _replace,
    "read_file": _read,
    "read_many_files": _read,
}
_WRITE_TOOLS = ("write_file", "replace")
#: Tools that change no file (their calls keep no state to compare after them).
_READ_ONLY_TOOLS = frozenset(
    ["glob", "search_file_content", "list_directory", "google_web_search", "web_fetch",
     "write_todos"]
)  # fmt: skip


def _shell(name: str, args: dict[str, Any]) -> ToolCall:
    from intent_ls.agents.barrier import unwrap

    workdir = args.get("dir_path", args.get("directory"))
    return ToolCall(
        ToolKind.SHELL,
        name,
        command=unwrap(text_of(args.get("command")) or ""),
        arguments=args,
        workdir=workdir if isinstance(workdir, str) or workdir is None else "\0",
    )


def tool_call(name: str, args: dict[str, Any], mcp: dict[str, Any] | None = None) -> ToolCall:
    own = _own_tool(name, args, mcp)
    if own is not None:
        return own
    path = text_of(args.get("file_path")) or text_of(args.get("absolute_path"))
    if name in _WRITE_TOOLS and path is None:
        from intent_ls.agents.hook_json import unreadable

        return unreadable(name, args, ("file_path", "absolute_path"))
    if name in _FILE_TOOLS and path is not None:
        return _FILE_TOOLS[name](name, path, args)
    if name == "run_shell_command":
        return _shell(name, args)
    return ToolCall(ToolKind.READ if name in _READ_ONLY_TOOLS else ToolKind.OTHER, name)


def parse(payload: dict[str, Any]) -> HookEvent:
    phase = PHASES.get(str(payload.get("hook_event_name")), Phase.OTHER)
    tool = None
    model = None
    if phase in (Phase.BEFORE_TOOL, Phase.AFTER_TOOL):
        args = payload.get("tool_input")
        mcp = payload.get("mcp_context")
        tool = tool_call(
            str(payload.get("tool_name") or ""),
            args if isinstance(args, dict) else {},
            mcp if isinstance(mcp, dict) else None,
        )
    elif phase is Phase.BEFORE_MODEL:
        request = payload.get("llm_request")
        model = text_of(request.get("model")) if isinstance(request, dict) else None
    return HookEvent(
        agent=AGENT,
        phase=phase,
        session_id=str(payload.get("session_id") or "none"),
        cwd=text_of(payload.get("cwd")) or "",
        model=model,
        tool=tool,
        transcript_path=text_of(payload.get("transcript_path")),
        tool_id=text_of(payload.get("tool_use_id")) or text_of(payload.get("call_id")),
    )


def render(event_name: str, outcome: Outcome) -> dict[str, Any]:
    if event_name != "BeforeTool":
        return hook_json.context(event_name, outcome, ("SessionStart", "BeforeAgent", "AfterTool"))
    if outcome.decision is Decision.PASS and outcome.updated_input is not None:
        # No decision: Gemini's own approval mode and policy still apply.
        return hook_json.specific(event_name, "tool_input", outcome.updated_input)
    if outcome.decision is Decision.PASS:
        return {}
    out: dict[str, Any] = {"decision": outcome.decision.value}
    if outcome.reason:
        out["reason"] = outcome.reason
    return out
