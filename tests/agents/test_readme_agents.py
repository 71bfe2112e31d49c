"""The README's "With your coding agent" commands, run as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

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


def agent_table() -> list[tuple[str, str, list[str]]]:
    """(agent, install command, files it writes) of each row of the section's table."""
    rows = []
    for line in readme_section("## With your coding agent").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`intent-ls hooks install "):
            files = re.findall(r"`([^`]+)`", cells[2])
            rows.append((cells[0], cells[1].strip("`"), files))
    return rows


def test_the_table_names_every_agent_once() -> None:
    from intent_ls.agents import registry

    named = [command.split()[-1] for _, command, _ in agent_table()]
    assert sorted(named) == sorted(registry.names())
    labels = {registry.get(name).label for name in named}
    assert labels == {label for label, _, _ in agent_table()}


@pytest.mark.parametrize(("label", "command", "files"), agent_table())
def test_each_agents_install_line_works_as_written(
    workspace: Path, label: str, command: str, files: list[str]
) -> None:
    """Installed as the table spells it, the agent's files are there and ``doctor`` says
    its hook fires; ``--uninstall`` takes them out again."""
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    done = subprocess.run(command, shell=True, cwd=workspace, env=env, capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    for name in files:
        assert (workspace / name).exists(), (label, name)
    name = command.split()[-1]
    doctor = subprocess.run(["intent-ls", "doctor"], cwd=workspace, env=env,
                            capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    fires = [line for line in doctor.stdout.splitlines() if f" {name} fires on a write:" in line]
    assert fires and all(line.startswith("ok ") for line in fires), doctor.stdout
    undone = subprocess.run(f"{command} --uninstall", shell=True, cwd=workspace, env=env,
                            capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert undone.returncode == 0, undone.stderr
