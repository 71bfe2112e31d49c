"""Each agent's hook payloads → the one event model, and outcomes → each agent's JSON.

Payload shapes follow what the real CLIs send (``../shared/design/real-agents.md``).
"""

from __future__ import annotations

from intent_ls.agents.claude_code import adapter as claude
from intent_ls.agents.codex import adapter as codex
from intent_ls.agents.codex.apply_patch import parse_patch
from intent_ls.agents.events import Decision, Outcome, Phase, ToolKind
from intent_ls.agents.gemini import adapter as gemini

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


PATCH = """*** Begin Patch
*** Add File: src/new.py
+print("hi")
*** Update File: src/app.py
@@ def main():
-    return 1
+    return 2
*** Delete File: src/old.py
*** Update File: src/a.py
*** Move to: src/b.py
@@
 x = 1
*** End Patch
"""


def test_codex_apply_patch_every_file() -> None:
    event = codex.parse(
        {
            **BASE,
            "model": "gpt-5.5",
            "hook_event_name": "PreToolUse",
            "tool_name": "apply_patch",
            "tool_input": {"command": PATCH},
        }
    )
    assert event.agent == "codex" and event.model == "gpt-5.5"
    assert event.tool is not None and event.tool.kind is ToolKind.WRITE
    files = {c.path: c for c in event.tool.files}
    assert set(files) == {"src/new.py", "src/app.py", "src/old.py", "src/a.py"}
    assert files["src/new.py"].new_text == 'print("hi")\n'
    assert files["src/old.py"].delete
    assert files["src/a.py"].move_to == "src/b.py"
    update = files["src/app.py"].transform
    assert update is not None
    assert update("def main():\n    return 1\n") == "def main():\n    return 2\n"
    assert update("something else\n") is None


def test_codex_shell_and_ask_becomes_deny() -> None:
    event = codex.parse(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
        }
    )
    assert event.tool is not None and event.tool.kind is ToolKind.SHELL
    heredoc = codex.parse(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "apply_patch <<'EOF'\n" + PATCH + "EOF\n"},
        }
    )
    assert heredoc.tool is not None and heredoc.tool.kind is ToolKind.WRITE
    own = codex.parse(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "mcp__intent_ls__select_active_intent",
            "tool_input": {"intent_id": "INT-1"},
        }
    )
    assert own.tool is not None and own.tool.kind is ToolKind.OWN_MCP
    assert own.tool.mcp_tool == "select_active_intent"
    out = codex.render("PreToolUse", Outcome(Decision.ASK, "approve first"))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"


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


def test_patch_parser_rejects_garbage_and_keeps_unknown_as_shell() -> None:
    event = codex.parse(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "apply_patch",
            "tool_input": {"command": "not a patch"},
        }
    )
    assert event.tool is not None and event.tool.kind is ToolKind.SHELL
    files = parse_patch("*** Begin Patch\n*** Add File: x\n+a\n+b\n*** End Patch\n")
    assert files[0].new_text(None) == "a\nb\n"
