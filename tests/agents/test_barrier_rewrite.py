"""Shell commands rewritten to run under the write barrier, in each agent's spelling,
and read back as the agent's own command after the call."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls.agents.barrier import available, unwrap, wrap
from intent_ls.agents.codex import adapter as codex
from intent_ls.agents.events import Decision, Outcome
from intent_ls.agents.gemini import adapter as gemini
from tests.agents.conftest import Hook, let_through, rewritten

COMMANDS = [
    "echo hi",
    "printf '%s\\n' \"a b\" && echo ' || exit 126\n' ; echo done",
    "cat <<'EOF'\nx || exit 126\nEOF\n",
    "",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_unwrap_gives_back_the_agents_command(command: str) -> None:
    wrapped = wrap(sys.executable, Path("/w s/root"), command)
    assert unwrap(wrapped) == command
    with_jobs = wrap(sys.executable, Path("/w s/root"), command, "_bgpids_file")
    assert unwrap(with_jobs) == command
    assert unwrap(with_jobs.replace("_bgpids_file", "x; rm -rf src")) != command


def test_the_single_shot_form_keeps_the_command_verbatim_for_the_agents_own_checks() -> None:
    command = "rm -f build/x && echo $(date)"
    wrapped = wrap(sys.executable, Path("/root/ws"), command)
    assert wrapped.startswith("exec ") and wrapped.endswith("\n" + command)


def test_a_lookalike_with_more_after_it_is_judged_whole() -> None:
    """Where no rewrite happens (no barrier here) the agent's command runs as sent: a
    look-alike of the wrap must not hide what follows it from the judge."""
    honest = wrap(sys.executable, Path("/r"), "ls")
    for fake in (honest + "; rm -rf src", honest + "\nrm -rf src", honest.replace("ls", "lx")):
        assert unwrap(fake) == fake
    for smuggled in (honest.replace(" '' ", " '' '' "), honest.replace(" '' ", " 'a;b' x ")):
        assert unwrap(smuggled) == smuggled


def test_the_session_the_rewrite_names_is_part_of_the_form() -> None:
    """The hook names the session whose processes the command's are; a form naming
    another gives back the command inside it, which the hook then wraps with its own."""
    mine = wrap(sys.executable, Path("/r"), "ls", session="s-1; rm -rf /")
    assert unwrap(mine) == "ls"
    assert unwrap(mine.replace("s-1", "s-2")) == "ls"
    assert mine != wrap(sys.executable, Path("/r"), "ls")


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
    assert shlex.split(str(args["command"]).split(" || exit 126")[0])[6] == hook.session
    done = subprocess.run(
        ["bash", "-c", str(args["command"])],
        cwd=governed / ("src" if extra.get("dir_path") else ""),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 3 and done.stdout == "ran\n"
    assert not (governed / ".orchestration" / "new").exists()  # the sidecar's copy at most


def _as_gemini_runs_it(command: str, jobs_file: Path) -> str:
    """Gemini CLI 0.61.0's ``wrapCommandForBackgroundPIDs``, as in its bundle."""
    return (
        f"_bgpids_file={jobs_file}\n(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\n"
        f"{command}\n)\n__code=$?\nexit $__code"
    )


@pytest.mark.skipif(not available(), reason="no user and mount namespaces here")
def test_gemini_still_learns_the_jobs_a_command_leaves_running(governed: Path) -> None:
    """Gemini lists background jobs from a trap in the shell around the command; the
    barrier's ``exec`` leaves that shell no jobs, so the command's own shell lists them."""
    hook = Hook(governed, "gemini")
    command = "sleep 1 >/dev/null 2>&1 & echo started; exit 4"
    args = rewritten(hook("BeforeTool", "run_shell_command", {"command": command}))
    assert args is not None
    jobs = governed.parent / "bgpids.tmp"
    exec_only = wrap(sys.executable, governed, command, None)  # no shell left to list them
    for script, listed in ((command, True), (str(args["command"]), True), (exec_only, False)):
        jobs.unlink(missing_ok=True)
        done = subprocess.run(
            ["bash", "-c", _as_gemini_runs_it(script, jobs)],
            cwd=governed, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode == 4 and done.stdout == "started\n", done.stderr
        assert jobs.exists() is listed and (not listed or jobs.read_text().strip().isdigit())


@pytest.mark.skipif(not available(), reason="no user and mount namespaces here")
def test_inside_an_agents_own_sandbox_the_command_runs_without_the_barrier(
    governed: Path,
) -> None:
    """Codex's sandbox lets no namespace be mapped: the command runs, saying so, and is
    verified after the call (rather than failing every command)."""
    sandboxed = (
        "import sys\nfrom pathlib import Path\nfrom intent_ls.agents import barrier\n"
        "barrier.available = lambda: False\nbarrier._confined = lambda: True\n"
        "command = 'echo ran > .orchestration/x; cat .orchestration/x'\n"
        "barrier.run(Path(sys.argv[1]), command, None)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", sandboxed, str(governed)],
        cwd=governed, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout == "ran\n", done.stderr
    assert "no sandbox inside this agent's sandbox" in done.stderr
