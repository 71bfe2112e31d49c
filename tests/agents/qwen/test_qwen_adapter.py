"""Qwen Code's hook payloads → the one event model, and outcomes → its JSON. Payload
shapes follow what Qwen Code 0.24.4 sends (logged from the real CLI)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents import barrier
from intent_ls.agents.events import Decision, Outcome, Phase, ToolKind
from intent_ls.agents.qwen import adapter as qwen

BASE = {
    "session_id": "98caaa3c",
    "transcript_path": "/h/.qwen/projects/-ws/chats/98caaa3c.jsonl",
    "cwd": "/ws",
    "timestamp": "2026-11-29T13:36:20.790Z",
    "permission_mode": "yolo",
}


def before(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        **BASE,
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": args,
        "tool_use_id": "toolu_1795959380770_975m2kp2k",
        "tool_call_id": "call_1",
    }


def test_qwen_file_tools() -> None:
    write = qwen.parse(before("write_file", {"file_path": "/ws/src/a.py", "content": "x\n"}))
    assert write.agent == "qwen" and write.phase is Phase.BEFORE_TOOL
    assert write.tool is not None and write.tool.kind is ToolKind.WRITE
    assert write.tool.name == "write_file" and write.tool.files[0].new_text == "x\n"
    assert write.permission_mode == "yolo" and write.tool_id == "toolu_1795959380770_975m2kp2k"
    edit = qwen.parse(
        before("edit", {"file_path": "/ws/a", "old_string": "1", "new_string": "2",
                        "replace_all": True})
    )  # fmt: skip
    assert edit.tool is not None and edit.tool.files[0].transform is not None
    assert edit.tool.files[0].transform("1 1") == "2 2"
    notebook = qwen.parse(before("notebook_edit", {"notebook_path": "/ws/n.ipynb"}))
    assert notebook.tool is not None and notebook.tool.kind is ToolKind.WRITE
    read = qwen.parse(before("read_file", {"file_path": "/ws/src/a.py"}))
    assert read.tool is not None and read.tool.kind is ToolKind.READ
    assert qwen.parse(before("grep_search", {"pattern": "x"})).tool.kind is ToolKind.READ  # type: ignore[union-attr]
    other = qwen.parse(before("save_memory", {"fact": "x"}))
    assert other.tool is not None and other.tool.kind is ToolKind.OTHER


def test_a_write_without_a_string_path_is_unreadable() -> None:
    for tool, args in (("write_file", {"path": "a", "content": ""}), ("notebook_edit", {})):
        call = qwen.parse(before(tool, args)).tool
        assert call is not None and call.problem is not None
        assert call.problem.startswith(f"{tool}'s input has no string")


def test_qwen_shell_and_its_sandboxed_form() -> None:
    shell = qwen.parse(before("run_shell_command", {"command": "ls src", "directory": "src"}))
    assert shell.tool is not None and shell.tool.kind is ToolKind.SHELL
    assert shell.tool.command == "ls src" and shell.tool.workdir == "src"
    form = barrier.wrap("/venv/bin/python3", Path("/ws"), "ls src")
    back = qwen.parse(before("run_shell_command", {"command": form}))
    assert back.tool is not None and back.tool.command == "ls src"
    assert back.tool.arguments["command"] == form


def test_qwen_mcp_session_start_and_render() -> None:
    own = qwen.parse(before("mcp__intent-ls__select_active_intent", {"intent_id": "INT-APP"}))
    assert own.tool is not None and own.tool.kind is ToolKind.OWN_MCP
    assert own.tool.mcp_tool == "select_active_intent"
    start = qwen.parse(
        {**BASE, "hook_event_name": "SessionStart", "source": "startup", "model": "qwen3-coder"}
    )
    assert start.phase is Phase.SESSION_START and start.model == "qwen3-coder"
    assert qwen.render("PreToolUse", Outcome(Decision.DENY, "no")) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }
    # Headless Qwen would turn an ask into a deny without the approve step: never asked.
    asked = qwen.render("PreToolUse", Outcome(Decision.ASK, "why"))
    assert asked["hookSpecificOutput"]["permissionDecision"] == "deny"
    told = qwen.render("PostToolUse", Outcome(context="put back"))
    assert told["hookSpecificOutput"]["additionalContext"] == "put back"


def test_a_failed_tool_is_an_after_tool_event_too() -> None:
    failed = qwen.parse(
        {**BASE, "hook_event_name": "PostToolUseFailure", "tool_name": "run_shell_command",
         "tool_input": {"command": "exit 3"}, "error": "Exit Code: 3", "is_interrupt": False}
    )  # fmt: skip
    assert failed.phase is Phase.AFTER_TOOL and failed.tool is not None
    assert failed.tool.failed and failed.tool.command == "exit 3"
    told = qwen.render("PostToolUseFailure", Outcome(context="put back"))
    assert told["hookSpecificOutput"] == {
        "hookEventName": "PostToolUseFailure",
        "additionalContext": "put back",
    }


def test_only_a_written_prompt_gets_the_context() -> None:
    written = qwen.parse({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": "do it",
                          "submitted_prompt": "do it"})  # fmt: skip
    assert written.phase is Phase.PROMPT
    going_on = qwen.parse({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": ""})
    assert going_on.phase is Phase.OTHER
