"""Gemini CLI's hook payloads → the one event model, and outcomes → its JSON.

Payload shapes follow what the real CLI sends (``../shared/design/real-agents.md``).
"""

from __future__ import annotations

from intent_ls.agents.events import Decision, Outcome, Phase, ToolKind
from intent_ls.agents.gemini import adapter as gemini

BASE = {"session_id": "abc", "transcript_path": "/t.jsonl", "cwd": "/ws"}


def test_gemini_tools_model_and_render() -> None:
    write = gemini.parse(
        {
            **BASE,
            "hook_event_name": "BeforeTool",
            "tool_name": "write_file",
            "tool_input": {"file_path": "src/a.py", "content": "x\n"},
        }
    )
    assert write.agent == "gemini" and write.tool is not None
    assert write.tool.kind is ToolKind.WRITE and write.tool.files[0].new_text == "x\n"
    replace = gemini.parse(
        {
            **BASE,
            "hook_event_name": "BeforeTool",
            "tool_name": "replace",
            "tool_input": {"file_path": "a", "old_string": "1", "new_string": "2"},
        }
    )
    assert replace.tool is not None and replace.tool.files[0].transform is not None
    assert replace.tool.files[0].transform("1 1") == "2 1"
    shell = gemini.parse(
        {
            **BASE,
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "rm -rf src"},
        }
    )
    assert shell.tool is not None and shell.tool.kind is ToolKind.SHELL
    own = gemini.parse(
        {
            **BASE,
            "hook_event_name": "BeforeTool",
            "tool_name": "mcp_intent-ls_select_active_intent",
            "tool_input": {"intent_id": "X"},
            "mcp_context": {"server_name": "intent-ls", "tool_name": "select_active_intent"},
        }
    )
    assert own.tool is not None and own.tool.kind is ToolKind.OWN_MCP
    assert own.tool.mcp_tool == "select_active_intent"
    model = gemini.parse(
        {**BASE, "hook_event_name": "BeforeModel", "llm_request": {"model": "gemini-2.5-pro"}}
    )
    assert model.phase is Phase.BEFORE_MODEL and model.model == "gemini-2.5-pro"
    assert gemini.render("BeforeTool", Outcome(Decision.DENY, "no")) == {
        "decision": "deny",
        "reason": "no",
    }
    assert gemini.render("BeforeTool", Outcome()) == {}
    ctx = gemini.render("SessionStart", Outcome(context="c"))
    assert ctx["hookSpecificOutput"]["additionalContext"] == "c"
