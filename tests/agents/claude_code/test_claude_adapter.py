"""Claude Code's hook payloads → the one event model, and outcomes → its JSON.

Payload shapes follow what the real CLI sends (``../shared/design/real-agents.md``).
"""

from __future__ import annotations

from intent_ls.agents.claude_code import adapter as claude
from intent_ls.agents.events import Decision, Outcome, Phase, ToolKind

BASE = {"session_id": "abc", "transcript_path": "/t.jsonl", "cwd": "/ws"}


def test_claude_write_edit_bash_read_and_own_mcp() -> None:
    write = claude.parse(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": "/ws/src/a.py", "content": "x = 1\n"},
        }
    )
    assert write.phase is Phase.BEFORE_TOOL and write.session_id == "abc"
    assert write.transcript_path == "/t.jsonl"
    assert write.tool is not None and write.tool.kind is ToolKind.WRITE
    assert write.tool.files[0].path == "/ws/src/a.py"
    assert write.tool.files[0].new_text == "x = 1\n"

    edit = claude.parse(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {
                "file_path": "/ws/a.py",
                "old_string": "a",
                "new_string": "b",
                "replace_all": True,
            },
        }
    )
    assert edit.tool is not None
    change = edit.tool.files[0]
    assert change.transform is not None
    assert change.transform("a a") == "b b"
    assert change.transform("zzz") is None  # does not apply: judged on the path alone

    bash = claude.parse(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf src", "description": "x"},
        }
    )
    assert bash.tool is not None and bash.tool.kind is ToolKind.SHELL
    assert bash.tool.command == "rm -rf src"

    read = claude.parse(
        {
            **BASE,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": "/ws/a.py"},
            "tool_response": {},
        }
    )
    assert read.phase is Phase.AFTER_TOOL and read.tool is not None
    assert read.tool.kind is ToolKind.READ

    own = claude.parse(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "mcp__intent-ls__select_active_intent",
            "tool_input": {"intent_id": "INT-1"},
        }
    )
    assert own.tool is not None and own.tool.kind is ToolKind.OWN_MCP
    assert own.tool.mcp_tool == "select_active_intent"
    assert own.tool.arguments == {"intent_id": "INT-1"}

    other = claude.parse(
        {**BASE, "hook_event_name": "PreToolUse", "tool_name": "mcp__other__x", "tool_input": {}}
    )
    assert other.tool is not None and other.tool.kind is ToolKind.OTHER


def test_claude_render() -> None:
    deny = claude.render("PreToolUse", Outcome(Decision.DENY, "why"))
    assert deny == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "why",
        }
    }
    assert claude.render("PreToolUse", Outcome()) == {}
    ask = claude.render("PreToolUse", Outcome(Decision.ASK, "human?"))
    assert ask["hookSpecificOutput"]["permissionDecision"] == "ask"
    start = claude.render("SessionStart", Outcome(context="ctx"))
    assert start == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "ctx"}
    }
    prompt = claude.render("UserPromptSubmit", Outcome(context="ctx"))
    assert prompt["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
