"""Codex CLI's own permissions, with and without intent-ls (the real CLI, offline).

``codex exec`` with Codex's defaults (no ``approval_policy``, no ``sandbox_mode``) and a
user rule allowing ``npm test``: the same commands succeed and the same fail after
``intent-ls hooks install codex`` as before it. intent-ls adds only its own refusals,
each saying so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.real_cli import (
    CODEX,
    CODEXES,
    DEV_COMMANDS,
    assert_same_permissions,
    developer_workspace,
    install_hooks,
    missing,
    run_codex,
)
from tests.agents.scripted_model import ScriptedCodex, codex_shell

pytestmark = pytest.mark.skipif(CODEX is None, reason=missing("the Codex CLI"))

RULES = 'prefix_rule(pattern = ["npm", "test"], decision = "allow")\n'


def _session(root: Path, tmp_path: Path, path: str, codex: str) -> list[str]:
    """Each command's output in one ``codex exec`` session with Codex's defaults."""
    model = ScriptedCodex([codex_shell(n, c) for n, c in enumerate(DEV_COMMANDS)])
    runs = tmp_path / f"run-{root.name}"
    runs.mkdir()
    results = run_codex(
        root, runs, model, path, sandbox=None, approval=None, rules=RULES, codex=codex
    )
    return [results[f"call_{n:02d}"] for n in range(len(DEV_COMMANDS))]


def _failed(output: str) -> bool:
    return "Process exited with code 0" not in output


@pytest.mark.parametrize("codex", CODEXES)
def test_the_agents_permissions_are_as_without_intent_ls(
    governed: Path, tmp_path: Path, agent_path: str, codex: str
) -> None:
    plain = developer_workspace(tmp_path, "plain", governed)
    ours = developer_workspace(tmp_path, "ours", governed)
    install_hooks("codex", ours, agent_path)

    before = _session(plain, tmp_path, agent_path, codex)
    after = _session(ours, tmp_path, agent_path, codex)
    assert_same_permissions(before, after, _failed)
    assert not (ours / "src" / "new.py").exists()
