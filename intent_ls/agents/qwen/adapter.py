"""Qwen Code's hook JSON ⇄ the event model: the PreToolUse format of
:mod:`intent_ls.agents.hook_json` (Qwen Code forked Gemini CLI and took Claude Code's
hook format) with Qwen's own tools.

In (checked in Qwen Code 0.24.4): ``hook_event_name``, ``session_id``, ``cwd``,
``transcript_path``, ``permission_mode``, ``tool_name``, ``tool_input``,
``tool_use_id``; the tools ``write_file`` (``file_path``, ``content``), ``edit``
(``file_path``, ``old_string``, ``new_string``, ``replace_all``), ``notebook_edit``
(``notebook_path``), ``read_file`` (``file_path``) and ``run_shell_command``
(``command``, ``directory``); MCP tools named ``mcp__<server>__<tool>``. The model id is
in every hook's environment (``QWEN_CODE_MODEL``) and in SessionStart's ``model``.

``UserPromptSubmit`` runs before every model call, with an empty ``prompt`` when the
call only sends a tool's result on: only a prompt someone wrote gets the context.

After a tool that failed — a shell command that exits non-zero too — Qwen runs
``PostToolUseFailure`` (``error`` instead of ``tool_response``) and not ``PostToolUse``:
both are the after-tool event here.

Out: ``hookSpecificOutput.permissionDecision`` before a tool and ``additionalContext``.
``ask`` is Qwen's own prompt interactively but a deny headless, so what needs a human is
denied with the ``intent-ls approve`` step.
Qwen ignores ``updatedInput`` there, so a shell command comes back in its sandboxed form
from the model itself (:func:`intent_ls.agents.gate.shell_barrier.sandbox_first`), and
is read back here as the command inside it.
"""

from __future__ import annotations

from typing import Any

from intent_ls.agents import hook_json
from intent_ls.agents.events import HookEvent, Outcome, Phase, ToolCall, ToolKind, text_of

AGENT = "qwen"
#: Headless Qwen turns an ``ask`` into a deny, and the hook cannot tell it is headless.
ASK_SUPPORTED = False
#: After a tool that failed (a shell command's non-zero exit included) Qwen Code runs
#: this event instead of PostToolUse: its effects are verified all the same.
FAILED = "PostToolUseFailure"
PROMPT = "UserPromptSubmit"
#: Qwen's file tools -> the tools of the format they act as.
_AS = {"write_file": "Write", "edit": "Edit", "notebook_edit": "NotebookEdit", "read_file": "Read"}
#: Tools that change no file (their calls keep no state to compare after them).
_READ_ONLY = frozenset(
    ["glob", "grep_search", "list_directory", "web_fetch", "web_search", "todo_write",
     "tool_search", "get_goal", "list_agents"]
)  # fmt: skip


def _shell(name: str, args: dict[str, Any]) -> ToolCall:
    from intent_ls.agents.barrier import unwrap

    workdir = args.get("directory")
    return ToolCall(
        ToolKind.SHELL,
        name,
        command=unwrap(text_of(args.get("command")) or ""),
        arguments=args,
        workdir=workdir if isinstance(workdir, str) or workdir is None else "\0",
    )


def tool_call(name: str, args: dict[str, Any]) -> ToolCall:
    if name == "run_shell_command":
        return _shell(name, args)
    if name in _AS:
        call = hook_json.tool_call(_AS[name], args)
        if call.problem:
            key = "notebook_path" if name == "notebook_edit" else "file_path"
            return hook_json.unreadable(name, args, (key,))
        return call._replace(name=name)
    if name in _READ_ONLY:
        return ToolCall(ToolKind.READ, name)
    return hook_json.tool_call(name, args)


def parse(payload: dict[str, Any]) -> HookEvent:
    name = payload.get("hook_event_name")
    if name == PROMPT and not text_of(payload.get("prompt")):
        # Qwen runs it before every model call, a tool's result sent on with an empty
        # prompt: the context is said once per prompt a human wrote, not per tool call.
        return hook_json.parse(payload, AGENT, tool_call)._replace(phase=Phase.OTHER)
    if name != FAILED:
        return hook_json.parse(payload, AGENT, tool_call)
    event = hook_json.parse({**payload, "hook_event_name": "PostToolUse"}, AGENT, tool_call)
    return event._replace(tool=event.tool and event.tool._replace(failed=True))


def render(event_name: str, outcome: Outcome) -> dict[str, Any]:
    if event_name == FAILED:
        return hook_json.context(event_name, outcome, (FAILED,))
    return hook_json.render(event_name, outcome, ask_supported=ASK_SUPPORTED)
