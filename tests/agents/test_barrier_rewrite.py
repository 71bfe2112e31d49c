"""Shell commands rewritten to run under the write barrier, in each agent's spelling,
and read back as the agent's own command after the call."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls.agents import codex, gemini
from intent_ls.agents.barrier import available, unwrap, wrap
from intent_ls.agents.events import Decision, Outcome
from tests.agents.conftest import Hook, let_through, rewritten

COMMANDS = [
    "echo hi",
    "printf '%s\\n' \"a b\" && echo ' || exit 126\n' ; echo done",
    "cat <<'EOF'\nx || exit 126\nEOF\n",
    "",
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("cwd_out", [None, "/tmp/intent-ls-cwd-x"])
def test_unwrap_gives_back_the_agents_command(command: str, cwd_out: str | None) -> None:
    wrapped = wrap(sys.executable, Path("/w s/root"), command, cwd_out)
    assert unwrap(wrapped) == command


def test_the_single_shot_form_keeps_the_command_verbatim_for_the_agents_own_checks() -> None:
    command = "rm -f build/x && echo $(date)"
    wrapped = wrap(sys.executable, Path("/root/ws"), command, None)
    assert wrapped.startswith("exec ") and wrapped.endswith("\n" + command)


@pytest.mark.parametrize("cwd_out", [None, "/tmp/intent-ls-cwd-x"])
def test_a_lookalike_with_more_after_it_is_judged_whole(cwd_out: str | None) -> None:
    """Where no rewrite happens (no barrier here) the agent's command runs as sent: a
    look-alike of the wrap must not hide what follows it from the judge."""
    honest = wrap(sys.executable, Path("/r"), "ls", cwd_out)
    for fake in (honest + "; rm -rf src", honest + "\nrm -rf src", honest.replace("ls", "lx")):
        assert unwrap(fake) == fake
    if cwd_out is not None:
        smuggled = honest.replace("(exit $__ils)", "rm -rf src; (exit $__ils)")
        assert smuggled != honest and unwrap(smuggled) == smuggled


def test_gemini_and_codex_spell_the_rewrite_their_way() -> None:
    outcome = Outcome(updated_input={"command": "x", "dir_path": "src"})
    assert gemini.render("BeforeTool", outcome) == {
        "hookSpecificOutput": {
            "hookEventName": "BeforeTool",
            "tool_input": {"command": "x", "dir_path": "src"},
        }
    }
    spec = codex.render("PreToolUse", Outcome(updated_input={"command": "x"}))
    assert spec["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert spec["hookSpecificOutput"]["updatedInput"] == {"command": "x"}
    assert codex.render("PreToolUse", Outcome(Decision.DENY, "no")) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }


@pytest.mark.skipif(not available(), reason="no user and mount namespaces here")
@pytest.mark.parametrize(
    ("agent", "before", "tool", "extra"),
    [
        ("gemini", "BeforeTool", "run_shell_command", {"dir_path": "src", "description": "d"}),
        ("codex", "PreToolUse", "Bash", {}),
    ],
)
def test_the_rewritten_command_runs_under_the_barrier_with_the_tools_other_arguments(
    governed: Path, agent: str, before: str, tool: str, extra: dict[str, str]
) -> None:
    hook = Hook(governed, agent)
    command = "p=$(echo ../.orch); echo x > ${p}estration/new; echo ran; exit 3"
    if agent == "codex":
        command = command.replace("../", "")
    out = hook(before, tool, {"command": command, **extra})
    assert let_through(out)
    args = rewritten(out)
    assert args is not None and {k: args[k] for k in extra} == extra
    assert unwrap(str(args["command"])) == command
    done = subprocess.run(
        ["bash", "-c", str(args["command"])],
        cwd=governed / ("src" if extra.get("dir_path") else ""),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 3 and done.stdout == "ran\n"
    assert not (governed / ".orchestration" / "new").exists()
    assert "Read-only file system" in done.stderr
