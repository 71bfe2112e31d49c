"""GitHub Copilot CLI's hook JSON ⇄ the event model.

Copilot CLI gives a hook one of two payloads, chosen by the casing of the event's name in
the hooks file: camelCase events (``preToolUse``) get ``{sessionId, toolName, toolArgs}``
with no event name in them; PascalCase events (``PreToolUse``) get Claude Code's format
(:mod:`intent_ls.agents.hook_json`: ``hook_event_name``, ``session_id``, ``tool_name``,
``tool_input``) and read its answer (``hookSpecificOutput.permissionDecision``,
``updatedInput``, ``additionalContext``). ``hooks install copilot`` writes PascalCase
events, so the payload names its event and both formats are the same one. Checked in
Copilot CLI 1.0.92 and 1.0.102:

- the tools arrive under Claude Code's names with Copilot's own arguments: ``Bash``
  ``{command, description, mode, …}``, ``Write`` (its ``create``) ``{path, file_text}``,
  ``Edit`` ``{path, old_str, new_str}``, ``Read`` (``view``) ``{path}``; MCP tools as
  ``<server>-<tool>`` (``intent-ls-select_active_intent``);
- ``PostToolUse`` fires only after a tool that succeeded, ``PostToolUseFailure`` after
  one that failed (a shell command's non-zero exit is a success): both are the after-tool
  event here;
- ``updatedInput`` without a decision replaces the tool's arguments, and Copilot then
  checks its own permissions on the rewritten command; ``ask`` prompts interactively and
  is a deny in ``-p`` mode ("unable to ask user for confirmation");
- no payload names the model: the session's event log
  (``$COPILOT_HOME/session-state/<session>/events.jsonl``, ``data.model``) does, and
  ``COPILOT_MODEL`` where the user set it.
"""

from __future__ import annotations

import os
from typing import Any

from intent_ls.agents import MCP_SERVER, hook_json
from intent_ls.agents.events import (
    FileChange,
    HookEvent,
    Outcome,
    Phase,
    ToolCall,
    ToolKind,
    text_of,
)

AGENT = "copilot"
#: The after-tool event of a tool that failed; judged like the one of a tool that ran.
FAILURE = "PostToolUseFailure"
AFTER = "PostToolUse"
OWN_PREFIX = f"{MCP_SERVER}-"
SHELL_TOOLS = ("Bash", "bash")
#: Tools that change no file (their calls keep no state to compare after them).
READ_ONLY_TOOLS = frozenset(
    ["Read", "view", "Glob", "glob", "Grep", "grep", "read_bash", "list_bash",
     "list_agents", "read_agent", "fetch_copilot_cli_documentation", "web_fetch"]
)  # fmt: skip


def _write(name: str, path: str, args: dict[str, Any]) -> ToolCall:
    return ToolCall(ToolKind.WRITE, name, (FileChange(path, text_of(args.get("file_text"))),))


def _edit(name: str, path: str, args: dict[str, Any]) -> ToolCall:
    before, after = text_of(args.get("old_str")), text_of(args.get("new_str"))
    change = FileChange(path)
    if before and after is not None:
        change = FileChange(path, None, lambda text: hook_json.replace(before, after, False, text))
    return ToolCall(ToolKind.WRITE, name, (change,))


def _read(name: str, path: str, args: dict[str, Any]) -> ToolCall:
    return ToolCall(ToolKind.READ, name, (FileChange(path),))


#: Tools that name one file, read by what they do with it (both spellings: the
#: camelCase payload names them as Copilot does).
_FILE_TOOLS = {
    "Write": _write,
    "create": _write,
    "Edit": _edit,
    "edit": _edit,
    "Read": _read,
    "view": _read,
}
_WRITE_TOOLS = ("Write", "create", "Edit", "edit")


def tool_call(name: str, args: dict[str, Any]) -> ToolCall:
    path = text_of(args.get("path"))
    if name in _WRITE_TOOLS and path is None:
        return hook_json.unreadable(name, args, ("path",))
    if name in _FILE_TOOLS and path is not None:
        return _FILE_TOOLS[name](name, path, args)
    if name in SHELL_TOOLS:
        from intent_ls.agents.barrier import unwrap

        command = unwrap(text_of(args.get("command")) or "")
        return ToolCall(ToolKind.SHELL, name, command=command, arguments=args)
    if name.startswith(OWN_PREFIX):
        return ToolCall(ToolKind.OWN_MCP, name, mcp_tool=name[len(OWN_PREFIX) :], arguments=args)
    return ToolCall(ToolKind.READ if name in READ_ONLY_TOOLS else ToolKind.OTHER, name)


def events_log(session: str) -> str:
    """Where Copilot CLI logs the session's events (the model of each tool call)."""
    home = os.environ.get("COPILOT_HOME") or os.path.expanduser("~/.copilot")
    return os.path.join(home, "session-state", os.path.basename(session), "events.jsonl")


def model_in_log(path: str) -> str | None:
    """The model of the newest event that names one."""
    from intent_ls.agents.jsonl_tail import newest

    return newest(path, b'"model"', _event_model)


def _event_model(entry: Any) -> str | None:
    data = entry.get("data") if isinstance(entry, dict) else None
    model = data.get("model") if isinstance(data, dict) else None
    return model if isinstance(model, str) and model else None


def parse(payload: dict[str, Any]) -> HookEvent:
    failed = payload.get("hook_event_name") == FAILURE
    if failed:
        payload = {**payload, "hook_event_name": AFTER}
    event = hook_json.parse(payload, AGENT, tool_call)
    if event.phase is not Phase.AFTER_TOOL or event.tool is None:
        return event
    model = os.environ.get("COPILOT_MODEL") or model_in_log(events_log(event.session_id))
    return event._replace(model=model, tool=event.tool._replace(failed=failed))


def render(event_name: str, outcome: Outcome) -> dict[str, Any]:
    if event_name == FAILURE:
        answer = hook_json.render(AFTER, outcome)
        spec = answer.get("hookSpecificOutput")
        if isinstance(spec, dict):
            spec["hookEventName"] = FAILURE
        return answer
    return hook_json.render(event_name, outcome)
