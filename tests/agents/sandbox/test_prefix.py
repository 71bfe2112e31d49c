"""``intent-ls-sandbox``, the prefix Claude Code runs every command through: which lines
run as they are, where the command's working directory goes, and refusals."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from intent_ls.agents.sandbox import bwrap
from intent_ls.agents.sandbox.prefix import _copy_cwd_file, _own_line

SANDBOX = str(Path(sys.executable).parent / "intent-ls-sandbox")
#: Claude Code's shell line around a command (2.1.197 and 2.1.332 alike).
CLAUDE_LINE = (
    "source /h/.claude/shell-snapshots/snapshot-bash-1.sh 2>/dev/null || true && "
    "{{ shopt -u extglob || setopt NO_EXTENDED_GLOB NO_BARE_GLOB_QUAL; }} >/dev/null 2>&1 "
    "|| true && eval {command} < /dev/null && pwd -P >| {cwd}"
)


@pytest.mark.parametrize(
    "line", ["intent-ls mcp", "intent-ls hook claude-code", "/opt/x/bin/intent-ls hook codex"]
)
def test_intent_ls_own_hook_and_server_lines_run_as_they_are(line: str) -> None:
    assert _own_line(line) == line.split()


@pytest.mark.parametrize(
    "line",
    [
        "intent-ls approve destructive-command",
        "intent-ls hook claude-code; rm -rf src",
        "intent-ls hook claude-code --workspace /",
        "intent-ls mcp --workspace /",
        "npx some-mcp-server",
        CLAUDE_LINE.format(command="'intent-ls mcp'", cwd="/tmp/claude-1-cwd"),
    ],
)
def test_every_other_line_is_sandboxed(line: str) -> None:
    assert _own_line(line) is None


def test_the_commands_working_directory_reaches_the_agent(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "host"))
    (tmp_path / "host").mkdir()
    private = tmp_path / "private"
    private.mkdir()
    (private / "claude-ab12-cwd").write_text("/w/src\n")
    host = tmp_path / "host" / "claude-ab12-cwd"
    _copy_cwd_file(CLAUDE_LINE.format(command="'cd src'", cwd=str(host)), str(private))
    assert host.read_text() == "/w/src\n"
    assert not (private / "claude-ab12-cwd").exists()
    elsewhere = tmp_path / "elsewhere"
    _copy_cwd_file(CLAUDE_LINE.format(command="ls", cwd=str(elsewhere)), str(private))
    assert not elsewhere.exists()  # only a file directly in the host's temp folder


def _run(cwd: Path, line: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SANDBOX, line], cwd=cwd, capture_output=True, text=True, check=False, timeout=60,
        env={**os.environ, **env},
    )  # fmt: skip


def test_outside_every_workspace_a_command_does_not_run(tmp_path: Path) -> None:
    done = _run(tmp_path, "touch made")
    assert done.returncode == 126 and "outside every governed workspace" in done.stderr
    assert not (tmp_path / "made").exists()


def test_usage_is_a_message_not_a_traceback() -> None:
    done = subprocess.run([SANDBOX], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stderr.startswith("usage:")


@pytest.mark.skipif(not bwrap.works()[0], reason="bubblewrap cannot run here")
def test_the_sessions_pinned_root_is_the_writable_one(tmp_path: Path, monkeypatch) -> None:
    """A decoy ``.orchestration/`` deeper down does not become the workspace: the session's
    first hook event pinned the real one."""
    from intent_ls.agents import session_root

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    root = tmp_path / "ws"
    (root / ".orchestration").mkdir(parents=True)
    decoy = root / "src" / "decoy"
    (decoy / ".orchestration").mkdir(parents=True)
    assert session_root.fixed("claude-code", "s1", root) == root  # pinned
    done = _run(decoy, "echo x > ../sibling.txt", CLAUDE_CODE_SESSION_ID="s1")
    assert done.returncode == 0, done.stderr
    assert (root / "src" / "sibling.txt").read_text() == "x\n"
    # Into the command's own copy of the sidecar at most (dropped after the call).
    _run(decoy, "echo x > ../../.orchestration/forged.yaml", CLAUDE_CODE_SESSION_ID="s1")
    assert not (root / ".orchestration" / "forged.yaml").exists()


def test_the_hook_keeps_the_plans_paths_for_the_prefix(governed: Path) -> None:
    """Before each shell command the hook, which has the spec and the profiles loaded,
    keeps what the plan starts from in the session's state: the prefix reads that instead
    of importing them on every command."""
    from intent_ls.agents import sessions
    from intent_ls.agents.sandbox.availability import PATHS
    from tests.agents.conftest import Hook

    hook = Hook(governed)
    hook("PreToolUse", "Bash", {"command": "ls"})
    kept = sessions.read_state(governed, "claude-code", hook.session)[PATHS]
    assert str(governed / ".orchestration") in kept["readonly"]
    assert str(governed / ".claude") in kept["readonly"]
    assert kept["writable"] == []
