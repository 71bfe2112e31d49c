"""Gemini CLI's own permissions, with and without intent-ls (the real CLI, offline).

In its ``default`` approval mode, headless, Gemini CLI runs a shell command its user's
``tools.allowed`` names and refuses every other (nobody can confirm). After ``intent-ls
hooks install gemini`` the same commands run and the same are refused: a command the
user's own rules allow is left as written (Gemini matches its rules on the command a
hook returns), and intent-ls adds only its own refusals, each saying so.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.agents.real_cli import GEMINI, GEMINIS, install_hooks, missing, run_gemini
from tests.agents.scripted_model import ScriptedGemini, tool

pytestmark = pytest.mark.skipif(GEMINI is None, reason=missing("the Gemini CLI"))

#: What a developer's session runs: the reads and ``npm test`` the user allowed, and
#: commands Gemini CLI would ask about (refused headless).
COMMANDS = (
    "ls src",
    "git status --short",
    "git diff",
    "npm test",
    "touch src/new.py",
    "echo hi > /tmp/note.txt",
)
ALLOWED = {
    "tools": {
        "allowed": [
            "run_shell_command(ls)",
            "run_shell_command(git status)",
            "run_shell_command(git diff)",
            "run_shell_command(npm test)",
        ]
    }
}


def _workspace(tmp_path: Path, name: str, governed: Path) -> Path:
    root = tmp_path / name
    subprocess.run(["cp", "-r", str(governed), str(root)], check=True)
    (root / "package.json").write_text('{"scripts": {"test": "echo npm-tested"}}\n')
    (root / ".npmrc").write_text("update-notifier=false\n")  # no registry call
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _session(root: Path, tmp_path: Path, path: str, gemini: str) -> list[str]:
    """Each command's response in one ``gemini -p`` session in the default mode."""
    model = ScriptedGemini(
        [tool(n, "run_shell_command", command=c) for n, c in enumerate(COMMANDS)],
        main_tool="run_shell_command",
    )
    runs = tmp_path / f"run-{root.name}"
    runs.mkdir()
    results = run_gemini(root, runs, model, path, "default", settings=ALLOWED, gemini=gemini)
    return [results[f"toolu_{n:02d}"] for n in range(len(COMMANDS))]


def _refused(response: str) -> bool:
    return '"error"' in response and "Output:" not in response


@pytest.mark.parametrize("gemini", GEMINIS)
def test_the_agents_permissions_are_as_without_intent_ls(
    governed: Path, tmp_path: Path, agent_path: str, gemini: str
) -> None:
    plain = _workspace(tmp_path, "plain", governed)
    ours = _workspace(tmp_path, "ours", governed)
    install_hooks("gemini", ours, agent_path)

    before = _session(plain, tmp_path, agent_path, gemini)
    after = _session(ours, tmp_path, agent_path, gemini)
    by_command = dict(zip(COMMANDS, after, strict=True))
    for command in ("ls src", "git status --short", "git diff", "npm test"):
        assert not _refused(by_command[command]), (command, by_command[command])
    assert "app.py" in by_command["ls src"]
    assert "npm-tested" in by_command["npm test"]
    assert "denied by policy" in by_command["echo hi > /tmp/note.txt"]
    ours_only = {c for c, text in by_command.items() if "[intent-ls]" in text}
    assert ours_only <= {"touch src/new.py"}, ours_only
    for command, was, now in zip(COMMANDS, before, after, strict=True):
        if command not in ours_only:
            assert _refused(was) == _refused(now), (command, was, now)
    assert not (ours / "src" / "new.py").exists()
