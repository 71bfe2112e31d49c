"""The real Claude Code CLI, offline against a scripted model, governed by intent-ls.

The agent runs its real tool loop: our hooks (installed by ``intent-ls hooks install``)
decide, our MCP server answers the handshake, and the test reads what the model was
told. Claude Code comes from npm (``@anthropic-ai/claude-code``); ``.ci/run`` installs it
and sets ``INTENT_LS_AGENTS`` (and ``INTENT_LS_REQUIRE_AGENTS=1`` so a missing CLI
fails there instead of skipping).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import APP
from tests.agents.real_cli import (
    CLAUDE,
    CLAUDE_SELECT,
    CLAUDES,
    install_hooks,
    missing,
    run_claude,
)
from tests.agents.scripted_model import ScriptedModel, result_text, tool
from tests.support import records

pytestmark = pytest.mark.skipif(CLAUDE is None, reason=missing("Claude Code"))


@pytest.mark.parametrize("claude", CLAUDES)
def test_claude_code_is_governed_end_to_end(
    governed: Path, tmp_path: Path, agent_path: str, claude: str
) -> None:
    install_hooks("claude-code", governed, agent_path)
    spec = (governed / ".orchestration" / "active_intents.yaml").read_text()
    spec_path = str(governed / ".orchestration/active_intents.yaml")
    model = ScriptedModel(
        [
            # Claude Code starts MCP servers in the background: wait for ours (on a loaded
            # machine the select below otherwise finds it still connecting).
            tool(0, "WaitForMcpServers"),
            tool(1, "Write", file_path=str(governed / "src/new.py"), content="x = 1\n"),
            tool(2, CLAUDE_SELECT, intent_id="INT-APP"),
            tool(3, "Write", file_path=str(governed / "src/new.py"), content="x = 1\n"),
            tool(4, "Write", file_path=str(governed / "docs/new.md"), content="# Mine\n"),
            tool(5, "Read", file_path=spec_path),
            tool(6, "Write", file_path=spec_path, content="active_intents: []\n"),
            tool(7, "Bash", command="rm -rf src", description="clean"),
            tool(8, "Bash", command="echo hacked > docs/guide.md", description="redirect"),
            "finished",
        ]
    )
    result = run_claude(governed, tmp_path, model, agent_path, claude=claude)
    results = {r["tool_use_id"]: r for r in model.tool_results()}
    assert len(results) == 9, model.tool_results()

    denied = results["toolu_01"]
    assert denied.get("is_error") and "no-active-intent" in result_text(denied)
    assert "select_active_intent" in result_text(denied)  # the next step reached the model

    selected = result_text(results["toolu_02"])
    assert '<intent_context id="INT-APP">' in selected and not results["toolu_02"].get("is_error")

    assert not results["toolu_03"].get("is_error"), result_text(results["toolu_03"])
    assert (governed / "src" / "new.py").read_text() == "x = 1\n"

    out_of_scope = results["toolu_04"]
    assert out_of_scope.get("is_error") and "out-of-scope" in result_text(out_of_scope)
    assert not (governed / "docs" / "new.md").exists()
    spec_write = results["toolu_06"]
    assert spec_write.get("is_error") and "protected-path" in result_text(spec_write)
    assert (governed / ".orchestration" / "active_intents.yaml").read_text() == spec

    held = results["toolu_07"]
    assert held.get("is_error") and "destructive-command" in result_text(held)
    assert (governed / "src" / "app.py").read_text() == APP  # nothing deleted

    redirect = results["toolu_08"]
    assert redirect.get("is_error") and "out-of-scope" in result_text(redirect)
    assert (governed / "docs" / "guide.md").read_text() == "# Guide\n"

    denials = {d.get("tool_use_id") for d in result.get("permission_denials", [])}
    assert {"toolu_01", "toolu_04", "toolu_06", "toolu_08"} <= denials

    [record] = records(governed)
    meta = record["metadata"]["intent_ls"]
    assert record["files"][0]["path"] == "src/new.py" and meta["intent_id"] == "INT-APP"
    contributor = record["files"][0]["conversations"][0]["contributor"]
    assert contributor == {"type": "ai", "model_id": model.main_requests[0]["model"]}
    assert meta["session_id"] == result["session_id"]
    verify = subprocess.run(
        [sys.executable, "-m", "intent_ls", "trace", "verify", "--workspace", str(governed)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert verify.returncode == 0, verify.stderr


@pytest.mark.parametrize("breakage", ["corrupted-spec", "crashing-policy"])
def test_claude_code_fails_closed(
    governed: Path, tmp_path: Path, breakage: str, agent_path: str
) -> None:
    install_hooks("claude-code", governed, agent_path)
    if breakage == "corrupted-spec":
        (governed / ".orchestration" / "active_intents.yaml").write_text("active_intents: [\n")
    else:  # the session store cannot be opened: the gate raises inside the hook
        local = governed / ".orchestration" / ".local"
        local.mkdir()
        (local / "agents").write_text("not a directory")
    model = ScriptedModel(
        [tool(1, "Write", file_path=str(governed / "src/fresh.py"), content="x\n"), "finished"]
    )
    run_claude(governed, tmp_path, model, agent_path)
    [denied] = model.tool_results()
    assert denied.get("is_error") and "governance-error" in result_text(denied)
    assert not (governed / "src" / "fresh.py").exists()


@pytest.mark.parametrize("claude", CLAUDES)
def test_git_stash_and_pop_carry_the_ledgers_records_in_claude_code(
    governed: Path, tmp_path: Path, agent_path: str, claude: str
) -> None:
    """Through Claude Code's own shell prefix: with a committed ledger and a record since,
    ``git stash`` and ``git stash pop`` succeed in the sandbox, the records go into the
    stash with the edit and come back with it, and nothing is put back or held."""
    git = ["-c", "user.name=agent", "-c", "user.email=agent@example.com"]
    subprocess.run(["git", "init", "-q"], cwd=governed, check=True)
    install_hooks("claude-code", governed, agent_path)
    commit = " ".join(["git", *git, "commit", "-qm", "base"])
    model = ScriptedModel(
        [
            tool(0, "WaitForMcpServers"),
            tool(1, CLAUDE_SELECT, intent_id="INT-APP"),
            tool(2, "Bash", command="echo 'x = 1' > src/made.py", description="made"),
            tool(3, "Bash", command=f"git add -A && {commit}", description="commit"),
            tool(4, "Bash", command="echo '# more' >> src/app.py", description="edit"),
            tool(5, "Bash", command="git stash && git status --short", description="stash"),
            tool(6, "Bash", command="git stash pop", description="pop"),
            "finished",
        ]
    )
    run_claude(governed, tmp_path, model, agent_path, "--allowedTools", "Bash", claude=claude)
    results = {r["tool_use_id"]: r for r in model.tool_results()}
    for call in ("toolu_03", "toolu_04", "toolu_05", "toolu_06"):
        assert not results[call].get("is_error"), result_text(results[call])
    told = json.dumps(model.main_requests[-1])  # the after-tool events' words, as the model saw
    assert "went into the stash with the work" in told
    assert "parked in the stash are back" in told and "put them back" not in told
    assert (governed / "src" / "app.py").read_text() == APP + "# more\n"
    assert [f["path"] for r in records(governed) for f in r["files"]][-1] == "src/app.py"
    stashes = subprocess.run(["git", "stash", "list"], cwd=governed, capture_output=True, text=True)
    assert stashes.stdout == ""
    check = [sys.executable, "-m", "intent_ls", "check", "--workspace", str(governed)]
    done = subprocess.run(check, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def _lingering_writer() -> str:
    """A command that leaves a process behind (its own session, every descriptor
    closed): once the call's after-tool event has kept the workspace's state for the
    next call, it writes out of scope and in scope, then ``src/late-done``."""
    code = (
        "import glob, os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid(); os.closerange(0, 1024)\n"
        "    base = os.environ.get('XDG_STATE_HOME') or os.path.expanduser('~/.local/state')\n"
        "    kept = os.path.join(base, 'intent-ls/effects/*/calls/between-*.json')\n"
        "    deadline = time.time() + 120\n"
        "    while not glob.glob(kept) and time.time() < deadline: time.sleep(0.05)\n"
        "    open('docs/guide.md', 'w').write('# Taken over\\n')\n"
        "    open('src/late.py', 'w').write('late = 1\\n')\n"
        "    open('src/late-done', 'w').write('1')\n"
    )
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


@pytest.mark.parametrize("claude", CLAUDES)
def test_a_process_left_running_is_judged_at_the_next_call_in_claude_code(
    governed: Path, tmp_path: Path, agent_path: str, claude: str
) -> None:
    """Issue 28, item 4, in the real Claude Code: what a process one call left running
    writes before the next call is judged there — the in-scope file recorded as the
    session's, the out-of-scope one held for the human (kept, logged, ``check``
    failing) — never taken silently as where the next call starts."""
    subprocess.run(["git", "init", "-q"], cwd=governed, check=True)
    install_hooks("claude-code", governed, agent_path)
    marker = governed / "src" / "late-done"

    def after_the_process_wrote() -> dict[str, Any] | str:
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline:  # the process's signal
            time.sleep(0.05)
        return tool(3, "Bash", command="true", description="next")

    model = ScriptedModel(
        [
            tool(0, "WaitForMcpServers"),
            tool(1, CLAUDE_SELECT, intent_id="INT-APP"),
            tool(2, "Bash", command=_lingering_writer(), description="start"),
            after_the_process_wrote,
            "finished",
        ]
    )
    run_claude(governed, tmp_path, model, agent_path, "--allowedTools", "Bash", claude=claude)
    assert marker.exists(), "the process never wrote"
    told = json.dumps(model.main_requests[-1])  # the after-tool events' words, as the model saw
    assert "docs/guide.md: out-of-scope, held" in told, told[-3000:]
    assert "recorded as this session's change" in told
    assert (governed / "docs" / "guide.md").read_text() == "# Taken over\n"
    assert "src/late.py" in {f["path"] for r in records(governed) for f in r["files"]}
    check = [sys.executable, "-m", "intent_ls", "check", "--workspace", str(governed)]
    done = subprocess.run(check, capture_output=True, text=True, check=False)
    assert done.returncode != 0 and "docs/guide.md" in done.stdout, done.stdout


@pytest.mark.parametrize("claude", CLAUDES)
def test_what_a_finished_sessions_process_changed_is_judged_in_the_next_session(
    governed: Path, tmp_path: Path, agent_path: str, claude: str
) -> None:
    """``claude -p`` ends after its last call, the process that call left running does
    not: what it writes is judged by the next session's first verified call (the same
    user's, so the same home), as the first session's change, rather than taken as
    where the next session starts."""
    subprocess.run(["git", "init", "-q"], cwd=governed, check=True)
    install_hooks("claude-code", governed, agent_path)
    marker = governed / "src" / "late-done"
    first = ScriptedModel(
        [
            tool(0, "WaitForMcpServers"),
            tool(1, CLAUDE_SELECT, intent_id="INT-APP"),
            tool(2, "Bash", command=_lingering_writer(), description="start"),
            "finished",
        ]
    )
    run_claude(governed, tmp_path, first, agent_path, "--allowedTools", "Bash",
               claude=claude)  # fmt: skip
    deadline = time.monotonic() + 120
    while not marker.exists() and time.monotonic() < deadline:  # the process's signal
        time.sleep(0.05)
    assert marker.exists(), "the process never wrote"
    second = ScriptedModel(
        [
            tool(0, "WaitForMcpServers"),
            tool(1, CLAUDE_SELECT, intent_id="INT-DOCS"),
            tool(2, "Bash", command="true", description="next"),
            "finished",
        ]
    )
    run_claude(governed, tmp_path, second, agent_path, "--allowedTools", "Bash",
               claude=claude)  # fmt: skip
    told = json.dumps(second.main_requests[-1])
    assert "A process another agent session left running" in told, told[-3000:]
    assert "docs/guide.md: out-of-scope, held" in told
    late = [r for r in records(governed) if r["files"][0]["path"] == "src/late.py"]
    assert len(late) == 1
    assert late[0]["metadata"]["intent_ls"]["intent_id"] == "INT-APP"
    assert (governed / "docs" / "guide.md").read_text() == "# Taken over\n"
    check = [sys.executable, "-m", "intent_ls", "check", "--workspace", str(governed)]
    done = subprocess.run(check, capture_output=True, text=True, check=False)
    assert done.returncode != 0 and "docs/guide.md" in done.stdout, done.stdout
