"""Gemini CLI's own permissions, with and without intent-ls (the real CLI, offline).

In its ``default`` approval mode, headless, Gemini CLI runs a shell command its user's
``tools.allowed`` names and refuses every other (nobody can confirm). After ``intent-ls
hooks install gemini`` the same commands run and the same are refused: a command the
user's own rules allow is left as written (Gemini matches its rules on the command a
hook returns), and intent-ls adds only its own refusals, each saying so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.real_cli import (
    DEV_COMMANDS,
    GEMINI,
    GEMINIS,
    assert_same_permissions,
    developer_workspace,
    install_hooks,
    missing,
    run_gemini,
)
from tests.agents.scripted_model import ScriptedGemini, tool

pytestmark = pytest.mark.skipif(GEMINI is None, reason=missing("the Gemini CLI"))

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


def _session(root: Path, tmp_path: Path, path: str, gemini: str) -> list[str]:
    """Each command's response in one ``gemini -p`` session in the default mode."""
    model = ScriptedGemini(
        [tool(n, "run_shell_command", command=c) for n, c in enumerate(DEV_COMMANDS)],
        main_tool="run_shell_command",
    )
    runs = tmp_path / f"run-{root.name}"
    runs.mkdir()
    results = run_gemini(root, runs, model, path, "default", settings=ALLOWED, gemini=gemini)
    return [results[f"toolu_{n:02d}"] for n in range(len(DEV_COMMANDS))]


def _refused(response: str) -> bool:
    return '"error"' in response and "Output:" not in response


@pytest.mark.parametrize("gemini", GEMINIS)
def test_the_agents_permissions_are_as_without_intent_ls(
    governed: Path, tmp_path: Path, agent_path: str, gemini: str
) -> None:
    plain = developer_workspace(tmp_path, "plain", governed)
    ours = developer_workspace(tmp_path, "ours", governed)
    install_hooks("gemini", ours, agent_path)

    before = _session(plain, tmp_path, agent_path, gemini)
    after = _session(ours, tmp_path, agent_path, gemini)
    assert_same_permissions(before, after, _refused)
    assert "denied by policy" in after[DEV_COMMANDS.index("echo hi > /tmp/note.txt")]
    assert not (ours / "src" / "new.py").exists()
