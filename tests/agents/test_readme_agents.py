"""The README's "With your coding agent" commands, run as written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support import readme_section, sh_blocks


def section_commands() -> list[str]:
    return sh_blocks(readme_section("## With your coding agent"))


def test_readme_agent_commands_work_as_written(workspace: Path) -> None:
    commands = section_commands()
    assert len(commands) == 5
    assert commands[-1] == "intent-ls doctor"
    (workspace / "src" / "auth" / "tokens_gen.py").write_text("TOKENS = []\n")
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    outputs = []
    for command in commands:
        done = subprocess.run(
            command, shell=True, cwd=workspace, env=env, capture_output=True, text=True,
            timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 0, (command, done.stderr)
        outputs.append(done.stdout)
    settings = json.loads((workspace / ".claude" / "settings.json").read_text())
    assert "PreToolUse" in settings["hooks"]
    assert outputs[1].splitlines()[0] == "destructive"
    assert "writes: notes.txt" in outputs[1]
    assert outputs[2].startswith("approved destructive-command")
    assert outputs[3].startswith("src/auth/tokens_gen.py: recorded")
    doctor = outputs[4].splitlines()
    assert all(line.startswith(("ok  ", "note")) for line in doctor), outputs[4]
    assert any(line.startswith("ok    claude-code fires on a write:") for line in doctor)
    assert any(line.startswith("ok    ledger verify: 2 record(s)") for line in doctor)
