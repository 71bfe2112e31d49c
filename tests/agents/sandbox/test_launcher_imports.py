"""The sandbox's launcher runs before every shell command an agent runs: what it imports
is paid on each one (benchmarks/sandbox_bench.py). It must not import the spec's
loader, YAML, attrs, the policy or the ledger."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls.agents.sandbox import bwrap
from tests.agents.conftest import Hook
from tests.support import SPEC

#: Runs Claude Code's launcher on ``true`` in-process, then prints the modules it imported.
PROBE = (
    "import sys\n"
    "sys.argv = ['intent-ls-sandbox', 'true']\n"
    "from intent_ls.agents.claude_code.shell_prefix import main\n"
    "status = main()\n"
    "print(status, ' '.join(sorted(sys.modules)))\n"
)
FORBIDDEN = ("yaml", "attr", "attrs", "intent_ls.spec.load", "intent_ls.policy", "intent_ls.ledger")


@pytest.mark.skipif(not bwrap.works()[0], reason="bubblewrap cannot run here")
def test_the_launcher_imports_no_spec_loader_attrs_policy_or_ledger(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".orchestration").mkdir(parents=True)
    (root / ".orchestration" / "active_intents.yaml").write_text(SPEC)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    # As in a session: the hook saw the command first and kept the plan's paths.
    Hook(root, session="imports")("PreToolUse", "Bash", {"command": "true"})
    env = {**os.environ, "CLAUDE_CODE_SESSION_ID": "imports"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=root, env=env, capture_output=True, text=True
    )
    status, modules = done.stdout.split(" ", 1)
    assert status == "0", done.stderr
    loaded = modules.split()
    assert "intent_ls.agents.sandbox.gather" in loaded  # the sandbox was planned here
    found = [m for m in loaded if m in FORBIDDEN or m.startswith(FORBIDDEN[-2:])]
    assert found == []
