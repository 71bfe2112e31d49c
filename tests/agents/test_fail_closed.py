"""Fail closed, everywhere: input the hook cannot read is refused, with the reason."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.agents.conftest import Hook, decision, let_through

SELECT = "mcp__intent-ls__select_active_intent"
PATCH = "*** Begin Patch\n*** Add File: src/new.py\n+x = 1\n*** End Patch\n"


def test_deep_or_huge_json_is_refused_with_status_2(governed: Path) -> None:
    hook = Hook(governed)
    for raw in (b"[" * 200_000 + b"]" * 200_000, b'{"a": "' + b"x" * (65 * 2**20) + b'"}'):
        done = hook.raw(raw)
        assert done.returncode == 2
        verdict, reason = decision(json.loads(done.stdout))
        assert verdict == "deny" and "governance-error" in reason


@pytest.mark.parametrize(
    ("agent", "tool", "args"),
    [
        ("claude-code", "Write", {"path": "src/x.py", "content": "x"}),
        ("claude-code", "Edit", {"file_path": ["src/x.py"], "old_string": "a"}),
        ("claude-code", "Write", {"file_path": 7, "content": "x"}),
        ("gemini", "write_file", {"path": "src/x.py", "content": "x"}),
        ("gemini", "replace", {"file_path": {"p": 1}}),
    ],
)
def test_unknown_tool_shapes_are_refused(
    governed: Path, agent: str, tool: str, args: dict[str, object]
) -> None:
    hook = Hook(governed, agent)
    event = "BeforeTool" if agent == "gemini" else "PreToolUse"
    verdict, reason = decision(hook(event, tool, args))
    assert verdict == "deny" and "cannot judge" in reason


def test_a_missing_cwd_is_refused(governed: Path) -> None:
    payload = {
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "echo x > src/a.txt"},
    }
    done = Hook(governed).raw(
        json.dumps(payload).encode(), env={"CLAUDE_PROJECT_DIR": str(governed)}
    )
    verdict, reason = decision(json.loads(done.stdout))
    assert verdict == "deny" and "working directory" in reason


def test_the_tools_own_working_directory_is_honoured_and_kept_inside(governed: Path) -> None:
    gemini = Hook(governed, "gemini")
    gemini("BeforeTool", "mcp_intent-ls_select_active_intent", {"intent_id": "INT-APP"})
    shell = {"command": "echo x > guide.md", "dir_path": "docs"}
    verdict, reason = decision(gemini("BeforeTool", "run_shell_command", shell))
    assert verdict == "deny" and "docs/guide.md" in reason and "out-of-scope" in reason
    outside = {"command": "ls", "dir_path": "../.."}
    verdict, reason = decision(gemini("BeforeTool", "run_shell_command", outside))
    assert verdict == "deny" and "outside the workspace" in reason
    codex = Hook(governed, "codex")
    codex("PreToolUse", "mcp__intent_ls__select_active_intent", {"intent_id": "INT-APP"})
    verdict, _ = decision(codex("PreToolUse", "Bash", {"command": "echo x > a", "workdir": "/"}))
    assert verdict == "deny"
    assert let_through(codex("PreToolUse", "Bash", {"command": "echo x > a.txt", "workdir": "src"}))


def test_codex_shell_apply_patch_is_a_patch_only_when_it_is_the_whole_script(
    governed: Path,
) -> None:
    codex = Hook(governed, "codex")
    codex("PreToolUse", "mcp__intent_ls__select_active_intent", {"intent_id": "INT-APP"})
    alone = f"apply_patch <<'EOF'\n{PATCH}EOF\n"
    assert codex("PreToolUse", "Bash", {"command": alone}) == {}
    chained = f"apply_patch <<'EOF'\n{PATCH}EOF\ngit push --force origin main\n"
    verdict, reason = decision(codex("PreToolUse", "Bash", {"command": chained}))
    assert verdict == "deny" and "destructive-command" in reason


def _handles(pid: int, signum: int) -> bool:
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(
        next(line for line in status.splitlines() if line.startswith("SigCgt:")).split()[1], 16
    )
    return bool(caught & (1 << (signum - 1)))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_sigterm_gets_a_refusal_not_silence(governed: Path, signum: int) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "intent_ls", "hook", "claude-code"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while not _handles(proc.pid, signal.SIGTERM):  # up once it catches SIGTERM (last)
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.01)
    proc.send_signal(signum)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 2
    verdict, reason = decision(json.loads(out))
    assert verdict == "deny" and "governance-error" in reason


def test_writes_through_hard_links_and_a_symlinked_intentignore(governed: Path) -> None:
    import os

    hook = Hook(governed)
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    (governed / ".intentignore").write_text("*.log\n")
    os.link(governed / ".intentignore", governed / "src" / "ig.txt")
    args = {"file_path": str(governed / "src" / "ig.txt"), "content": "src/**\n"}
    verdict, reason = decision(hook("PreToolUse", "Write", args))
    assert verdict == "deny" and "hard links" in reason
    # a symlinked .intentignore is not used: it cannot un-govern src/
    (governed / ".intentignore").unlink()
    (governed / "elsewhere").write_text("src/**\n")
    (governed / ".intentignore").symlink_to(governed / "elsewhere")
    out = hook("PreToolUse", "Write", {"file_path": str(governed / "docs/x.md"), "content": "x"})
    assert decision(out)[0] == "deny"
    hook2 = Hook(governed, session="s2")
    out = hook2("PreToolUse", "Write", {"file_path": str(governed / "src/x.py"), "content": "x"})
    assert decision(out)[0] == "deny"  # not ignored, so it needs an intent
