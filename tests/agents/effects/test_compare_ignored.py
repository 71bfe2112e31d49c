"""A file git ignores, which its status never listed and no snapshot kept, staged or
committed by a call (``git add -f``): it appears to be new, yet may have been a human's
file all along. Taken for new, it was removed as an out-of-scope creation, and the
human's file was gone. It is held instead: kept as it is, logged for a human."""

from __future__ import annotations

from pathlib import Path

import pytest

from intent_ls.agents.sandbox import bwrap
from intent_ls.workspace import effects_log
from tests.agents.effects_helpers import Agent, git_workspace, script
from tests.support import git

sandboxed = pytest.mark.skipif(not bwrap.works()[0], reason="bubblewrap cannot run here")

STAGE = "git add -f secrets.json"
COMMIT = "git add -f secrets.json && git -c user.email=a@b -c user.name=agent commit -qm s"


@pytest.fixture
def ws(governed: Path) -> Path:
    root = git_workspace(governed)
    (root / ".gitignore").write_text("secrets.json\n")
    (root / "secrets.json").write_text('{"token": "the human\'s"}\n')
    return root


@sandboxed
def test_a_humans_ignored_file_staged_by_a_call_is_held_not_removed(ws: Path) -> None:
    agent = Agent(ws)
    agent.select("INT-APP")
    _, told = agent.shell(STAGE)
    assert agent.done is not None and agent.done.returncode == 0, agent.done
    assert (ws / "secrets.json").read_text() == '{"token": "the human\'s"}\n'
    assert "secrets.json: out-of-scope, and it could not be put back" in told, told
    [held] = [e for e in effects_log.read(ws) if e["path"] == "secrets.json"]
    assert held["action"] == effects_log.UNRESTORABLE


@sandboxed
def test_a_humans_ignored_file_committed_by_a_call_stays_and_the_commit_goes(
    ws: Path,
) -> None:
    """Out of scope in a commit: the branch goes back (``branch_scope.py``), the file's
    index entry with it, and the file, ignored again, is left as the human had it."""
    agent = Agent(ws)
    agent.select("INT-APP")
    before = git(ws, "rev-parse", "HEAD")
    _, told = agent.shell(COMMIT)
    assert "secrets.json: out of scope, in commit" in told, told
    assert git(ws, "rev-parse", "HEAD") == before
    assert (ws / "secrets.json").read_text() == '{"token": "the human\'s"}\n'
    assert "secrets.json" not in git(ws, "ls-files")


@sandboxed
def test_a_new_file_the_call_made_and_staged_is_still_removed_when_out_of_scope(
    ws: Path,
) -> None:
    """Not ignored, so git's status would have listed it before: known to be new."""
    agent = Agent(ws)
    agent.select("INT-APP")
    _, told = agent.shell(script("echo x > notes.txt\ngit add notes.txt"))
    assert "notes.txt: out-of-scope, removed" in told, told
    assert not (ws / "notes.txt").exists()
