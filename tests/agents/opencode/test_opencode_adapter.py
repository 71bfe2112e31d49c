"""The shipped plugin's payloads → the one event model, and outcomes → the answer it
reads (shapes as OpenCode 1.18.33 hands them to ``tool.execute.before``/``after``)."""

from __future__ import annotations

from intent_ls.agents.events import Decision, Outcome, Phase, ToolKind
from intent_ls.agents.js_plugin.adapter import render
from intent_ls.agents.kilo.adapter import parse as kilo_parse
from intent_ls.agents.opencode.adapter import parse

BASE = {"session_id": "ses_1", "cwd": "/ws", "tool_use_id": "call_1", "model": "m-1"}


def _before(tool: str, **args: object) -> dict[str, object]:
    return {**BASE, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": args}


def test_its_tools_are_read_as_what_they_do() -> None:
    write = parse(_before("write", filePath="/ws/src/a.py", content="x\n"))
    assert write.agent == "opencode" and write.phase is Phase.BEFORE_TOOL
    assert write.model == "m-1" and write.tool_id == "call_1" and write.tool is not None
    assert write.tool.kind is ToolKind.WRITE and write.tool.files[0].new_text == "x\n"
    edit = parse(_before("edit", filePath="/ws/a", oldString="1", newString="2", replaceAll=True))
    assert edit.tool is not None and edit.tool.files[0].transform is not None
    assert edit.tool.files[0].transform("1 1") == "2 2"
    shell = parse(_before("bash", command="rm -rf src", workdir="src"))
    assert shell.tool is not None and shell.tool.kind is ToolKind.SHELL
    assert shell.tool.command == "rm -rf src" and shell.tool.workdir == "src"
    own = parse(_before("intent-ls_select_active_intent", intent_id="INT-1"))
    assert own.tool is not None and own.tool.kind is ToolKind.OWN_MCP
    assert own.tool.mcp_tool == "select_active_intent"
    read = parse(_before("grep", pattern="x"))
    assert read.tool is not None and read.tool.kind is ToolKind.READ
    other = parse(_before("apply_patch", patchText="*** Begin Patch"))
    assert other.tool is not None and other.tool.kind is ToolKind.OTHER
    assert kilo_parse(_before("write", filePath="/ws/a", content="")).agent == "kilo"


def test_a_write_without_a_path_cannot_be_judged() -> None:
    found = parse(_before("write", content="x"))
    assert found.tool is not None and found.tool.problem and "filePath" in found.tool.problem


def test_answers_refuse_rewrite_and_never_ask() -> None:
    deny = render("PreToolUse", Outcome(Decision.DENY, "[intent-ls] no"))
    assert deny["hookSpecificOutput"]["permissionDecision"] == "deny"
    held = render("PreToolUse", Outcome(Decision.ASK, "needs `intent-ls approve`"))
    assert held["hookSpecificOutput"]["permissionDecision"] == "deny"
    rewritten = render("PreToolUse", Outcome(updated_input={"command": "x"}))
    assert rewritten["hookSpecificOutput"]["updatedInput"] == {"command": "x"}
    note = render("PostToolUse", Outcome(context="put back"))
    assert note["hookSpecificOutput"]["additionalContext"] == "put back"
    assert render("PreToolUse", Outcome()) == {}
