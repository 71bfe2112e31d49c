"""The plugin fails closed in the real OpenCode: once the ``intent-ls`` it was installed
with is gone, every tool call is refused (nothing is written), and the model is told to
ask the human, rather than the tool running ungoverned."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agents.opencode.real_opencode import OPENCODE, run_cli
from tests.agents.real_cli import missing
from tests.agents.scripted_model import ScriptedChat, tool

pytestmark = pytest.mark.skipif(OPENCODE.binary is None, reason=missing("OpenCode"))


def test_a_hook_that_cannot_run_refuses_every_tool(governed: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "intent-ls"
    shutil.copy2(Path(sys.executable).parent / "intent-ls", program)
    path = os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])
    done = subprocess.run(
        [str(program), "hooks", "install", "opencode", "--workspace", str(governed)],
        capture_output=True, text=True, env={**os.environ, "PATH": path}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    program.rename(program.with_name("intent-ls-renamed"))
    model = ScriptedChat(
        [
            tool(1, "write", filePath=str(governed / "src/new.py"), content="x = 1\n"),
            tool(2, "bash", command="echo y > src/shell.py", description="w"),
            "finished",
        ],
        "write",
    )
    results = run_cli(OPENCODE, governed, tmp_path, model, os.environ.get("PATH", ""))
    for call in ("toolu_01", "toolu_02"):
        assert "governance-error" in results[call] and "refused" in results[call], results
    assert not (governed / "src/new.py").exists() and not (governed / "src/shell.py").exists()
