"""Approvals an agent cannot make: any spelling of ``intent-ls approve`` in its shell is
refused (never asked), the CLI refuses inside an agent's shell, and an approval record
that appears during a tool call is cut off the ledger."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from intent_ls.agents.approval_guard import AGENT_ENV
from intent_ls.agents.barrier import available
from tests.agents.conftest import decision
from tests.agents.effects_helpers import Agent, git_workspace
from tests.support import intent_ls, records

SPELLINGS = [
    "intent-ls approve destructive-edit src/app.py",
    "intent-ls approve --workspace . out-of-scope docs/guide.md",
    "'intent-ls' 'approve' destructive-edit src/app.py",
    "intent-l\\s appro\\ve destructive-edit src/app.py",
    'intent-ls "ap"prove destructive-edit src/app.py',
    "env -u CLAUDECODE intent-ls approve destructive-edit src/app.py",
    "bash -c 'intent-ls approve destructive-edit src/app.py'",
    "sh -c \"sh -c 'intent-ls approve destructive-edit x'\"",
    "python -m intent_ls approve destructive-edit src/app.py",
    "/usr/local/bin/intent-ls approve destructive-edit src/app.py",
    "echo ok; intent-ls approve destructive-edit src/app.py || true",
    "nohup intent-ls approve destructive-command --command 'git push -f' &",
    "X=approve; intent-ls $X destructive-edit src/app.py",
    "timeout 5 intent-ls approve scope-widened .orchestration/active_intents.yaml",
    "INTENT_LS=1 intent_ls approve destructive-edit src/app.py",
]


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_every_spelling_of_approve_is_denied_never_asked(governed: Path, agent: str) -> None:
    player = Agent(governed, agent)
    player.select("INT-APP")
    for command in SPELLINGS:
        pre, _ = player.shell(command, run_held=False)
        verdict, reason = decision(pre)
        assert verdict == "deny", command
        assert "human's decision" in reason, command


def test_the_cli_refuses_inside_an_agents_shell(governed: Path) -> None:
    for marker in AGENT_ENV:
        done = intent_ls(
            "approve",
            "--workspace",
            str(governed),
            "destructive-command",
            "--command",
            "git push -f",
            env={marker: "1"},
        )
        assert done.returncode != 0 and marker in done.stderr
        assert "Traceback" not in done.stderr
    assert records(governed) == []


@pytest.mark.parametrize(
    ("agent", "barrier"),
    [("claude-code", True), ("codex", True), ("gemini", True), ("gemini", False)],
)
def test_an_approval_written_during_a_call_is_cut_off(
    governed: Path, agent: str, barrier: bool
) -> None:
    """Behind the write barrier the ledger is read-only to the command; without it (a
    kernel with no user namespaces) the append is cut off after the call."""
    ws = git_workspace(governed)
    player = Agent(ws, agent, barrier=barrier)
    player.select("INT-APP")
    player.shell("echo a > src/a.txt")  # a first record: the ledger exists
    before = (ws / ".orchestration" / "agent_trace.jsonl").read_bytes()
    script = ws / "src" / "sneak.py"
    script.write_text(
        "import subprocess, os, sys\n"
        "env = {k: v for k, v in os.environ.items() if k != 'CLAUDECODE'}\n"
        "subprocess.run([sys.executable, '-m', 'intent_ls', 'approve', "
        "'destructive-command', '--command', 'git push -f'], env=env)\n"
    )
    player.shell(f"{sys.executable} src/sneak.py")
    assert (ws / ".orchestration" / "agent_trace.jsonl").read_bytes() == before
    if barrier and available():
        return
    log = [
        json.loads(line)
        for line in (ws / ".orchestration" / ".local" / "effects.jsonl").read_text().splitlines()
    ]
    assert any(e["code"] == "ledger-append" and "git push -f" not in e["path"] for e in log)
