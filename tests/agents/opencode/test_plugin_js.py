"""The shipped plugin itself, run by Node.js with stand-in hook commands: it acts on the
answer (refuses, rewrites the arguments in place, adds context after a tool), and fails
closed — a hook that cannot start or answers something that is not a JSON object is a
refusal, never a tool that runs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from intent_ls.agents.js_plugin.install import command_in, plugin_text

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="no Node.js here")
#: Calls one hook of the plugin with a tool call, prints what came of it as JSON.
DRIVER = """
const [plugin, hook, args] = process.argv.slice(2)
const made = await (await import(plugin)).IntentLs({ directory: process.cwd() })
const input = { tool: "bash", sessionID: "s1", callID: "c1", args: JSON.parse(args) }
const output = hook === "tool.execute.before" ? { args: JSON.parse(args) } : { output: "out" }
try {
  await made[hook](input, output)
  console.log(JSON.stringify({ ran: output }))
} catch (error) {
  console.log(JSON.stringify({ threw: error.message }))
}
"""


def _call(tmp_path: Path, command: list[str], hook: str = "tool.execute.before") -> dict:
    plugin = tmp_path / "plugin.mjs"
    plugin.write_text(plugin_text(command))
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    args = json.dumps({"command": "ls", "description": "d"})
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(driver), str(plugin), hook, args],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


def _answering(answer: object) -> list[str]:
    return ["sh", "-c", f"cat > /dev/null; printf '%s' '{json.dumps(answer)}'"]


def test_the_installed_plugin_names_its_command() -> None:
    command = ["/opt/intent ls/bin/intent-ls", "hook", "opencode"]
    assert command_in(plugin_text(command)) == command
    assert command_in("export {}") is None


@pytest.mark.parametrize(
    "command",
    [
        ["/nonexistent/intent-ls", "hook", "opencode"],
        ["sh", "-c", "echo Traceback; exit 1"],
        _answering(["a list"]),
    ],
    ids=["cannot start", "not JSON", "not an object"],
)
def test_a_hook_without_an_answer_refuses(tmp_path: Path, command: list[str]) -> None:
    found = _call(tmp_path, command)
    assert "governance-error" in found["threw"] and "refused" in found["threw"], found


def test_a_deny_throws_its_reason(tmp_path: Path) -> None:
    deny = {"permissionDecision": "deny", "permissionDecisionReason": "[intent-ls] no"}
    found = _call(tmp_path, _answering({"hookSpecificOutput": deny}))
    assert found == {"threw": "[intent-ls] no"}


def test_a_rewrite_replaces_the_arguments_in_place(tmp_path: Path) -> None:
    rewritten = {"command": "sandboxed ls", "description": "d"}
    found = _call(tmp_path, _answering({"hookSpecificOutput": {"updatedInput": rewritten}}))
    assert found == {"ran": {"args": rewritten}}


def test_no_opinion_lets_the_tool_run_as_it_is(tmp_path: Path) -> None:
    found = _call(tmp_path, _answering({}))
    assert found == {"ran": {"args": {"command": "ls", "description": "d"}}}


def test_context_after_a_tool_reaches_its_output(tmp_path: Path) -> None:
    note = {"hookSpecificOutput": {"additionalContext": "[intent-ls] put back"}}
    found = _call(tmp_path, _answering(note), "tool.execute.after")
    assert found == {"ran": {"output": "out\n\n[intent-ls] put back"}}
    failing = _call(tmp_path, ["/nonexistent/intent-ls"], "tool.execute.after")
    assert "governance-error" in failing["threw"]
