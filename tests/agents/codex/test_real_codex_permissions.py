"""Codex CLI's own permissions, with and without intent-ls (the real CLI, offline).

``codex exec`` with Codex's defaults (no ``approval_policy``, no ``sandbox_mode``) and a
user rule allowing ``npm test``: the same commands succeed and the same fail after
``intent-ls hooks install codex`` as before it. intent-ls adds only its own refusals,
each saying so.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.agents.real_cli import CODEX, CODEXES, install_hooks, missing, run_codex
from tests.agents.scripted_model import ScriptedCodex, codex_shell

pytestmark = pytest.mark.skipif(CODEX is None, reason=missing("the Codex CLI"))

COMMANDS = (
    "ls src",
    "git status --short",
    "git diff",
    "npm test",
    "touch src/new.py",
    "echo hi > /tmp/note.txt",
)
RULES = 'prefix_rule(pattern = ["npm", "test"], decision = "allow")\n'


def _workspace(tmp_path: Path, name: str, governed: Path) -> Path:
    root = tmp_path / name
    subprocess.run(["cp", "-r", str(governed), str(root)], check=True)
    (root / "package.json").write_text('{"scripts": {"test": "echo npm-tested"}}\n')
    (root / ".npmrc").write_text("update-notifier=false\n")  # no registry call
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _session(root: Path, tmp_path: Path, path: str, codex: str) -> list[str]:
    """Each command's output in one ``codex exec`` session with Codex's defaults."""
    model = ScriptedCodex([codex_shell(n, c) for n, c in enumerate(COMMANDS)])
    runs = tmp_path / f"run-{root.name}"
    runs.mkdir()
    results = run_codex(
        root, runs, model, path, sandbox=None, approval=None, rules=RULES, codex=codex
    )
    return [results[f"call_{n:02d}"] for n in range(len(COMMANDS))]


def _failed(output: str) -> bool:
    return "Process exited with code 0" not in output


@pytest.mark.parametrize("codex", CODEXES)
def test_the_agents_permissions_are_as_without_intent_ls(
    governed: Path, tmp_path: Path, agent_path: str, codex: str
) -> None:
    plain = _workspace(tmp_path, "plain", governed)
    ours = _workspace(tmp_path, "ours", governed)
    install_hooks("codex", ours, agent_path)

    before = _session(plain, tmp_path, agent_path, codex)
    after = _session(ours, tmp_path, agent_path, codex)
    by_command = dict(zip(COMMANDS, after, strict=True))
    for command in ("ls src", "git status --short", "git diff", "npm test"):
        assert not _failed(by_command[command]), (command, by_command[command])
    assert "app.py" in by_command["ls src"]
    assert "npm-tested" in by_command["npm test"]
    ours_only = {c for c, text in by_command.items() if "[intent-ls]" in text}
    assert ours_only <= {"touch src/new.py"}, ours_only
    for command, was, now in zip(COMMANDS, before, after, strict=True):
        if command not in ours_only:
            assert _failed(was) == _failed(now), (command, was, now)
    assert not (ours / "src" / "new.py").exists()
