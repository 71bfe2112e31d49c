"""Codex CLI's hook payloads (apply_patch included) → the one event model, and outcomes
→ its JSON.

Payload shapes follow what the real CLI sends (``../shared/design/real-agents.md``).
"""

from __future__ import annotations

from intent_ls.agents.codex import adapter as codex
from intent_ls.agents.codex.apply_patch import parse_patch
from intent_ls.agents.events import Decision, Outcome, ToolKind

BASE = {"session_id": "abc", "transcript_path": "/t.jsonl", "cwd": "/ws"}
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
