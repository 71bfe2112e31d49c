"""The shipped plugin's payloads ⇄ the event model.

The plugin sends the PreToolUse/PostToolUse JSON (:mod:`intent_ls.agents.hook_json`)
with its agent's own tools: ``write`` (``filePath``, ``content``), ``edit``
(``filePath``, ``oldString``, ``newString``, ``replaceAll``), ``bash`` (``command``,
``workdir``, ``timeout``), ``read``, and MCP tools named ``<server>_<tool>``; and the
model id (from its ``chat.params`` hook) in ``model``. It reads back
``permissionDecision`` (anything but ``allow`` throws: the tool does not run),
``updatedInput`` (the tool's arguments, changed in place: a shell command runs in the
sandbox) and, after a tool, ``additionalContext`` (added to the tool's output).
"""

from __future__ import annotations

import functools
from typing import Any

from intent_ls.agents import MCP_SERVER, hook_json
from intent_ls.agents.events import FileChange, HookEvent, Outcome, ToolCall, ToolKind, text_of

OWN_PREFIX = f"{MCP_SERVER}_"
WRITE_TOOLS = ("write", "edit")
#: Tools that change no file (their calls keep no state to compare after them).
READ_ONLY_TOOLS = frozenset(
    ["read", "glob", "grep", "list", "webfetch", "websearch", "todowrite", "todoread", "skill"]
)


def _file_call(name: str, path: str, args: dict[str, Any]) -> ToolCall:
    if name == "write":
        return ToolCall(ToolKind.WRITE, name, (FileChange(path, text_of(args.get("content"))),))
    before, after = text_of(args.get("oldString")), text_of(args.get("newString"))
    change = FileChange(path)
    if before and after is not None:
        every = args.get("replaceAll") is True
        change = FileChange(path, None, functools.partial(hook_json.replace, before, after, every))
    return ToolCall(ToolKind.WRITE, name, (change,))


def _shell(name: str, args: dict[str, Any]) -> ToolCall:
    from intent_ls.agents.barrier import unwrap

    workdir = args.get("workdir")
    return ToolCall(
        ToolKind.SHELL,
        name,
        command=unwrap(text_of(args.get("command")) or ""),
        arguments=args,
        workdir=workdir if isinstance(workdir, str) or workdir is None else "\0",
    )


def tool_call(name: str, args: dict[str, Any]) -> ToolCall:
    path = text_of(args.get("filePath"))
    if name in WRITE_TOOLS and not path:
        return hook_json.unreadable(name, args, ("filePath",))
    if name in WRITE_TOOLS and path:
        return _file_call(name, path, args)
    if name == "bash":
        return _shell(name, args)
    if name.startswith(OWN_PREFIX):
        return ToolCall(ToolKind.OWN_MCP, name, mcp_tool=name[len(OWN_PREFIX) :], arguments=args)
    if name == "read" and path:
        return ToolCall(ToolKind.READ, name, (FileChange(path),))
    return ToolCall(ToolKind.READ if name in READ_ONLY_TOOLS else ToolKind.OTHER, name)


def parse(payload: dict[str, Any], agent: str) -> HookEvent:
    return hook_json.parse(payload, agent, tool_call)


def render(event_name: str, outcome: Outcome) -> dict[str, Any]:
    """As the PreToolUse JSON, where nothing can ask a human: what needs one is denied,
    naming the step that approves it."""
    return hook_json.render(event_name, outcome, ask_supported=False)
