"""The ledger as git rewrites it in the sandbox (``git stash``, ``stash pop``):
through a copy the after-tool event takes in only when records go into a stash and come
back from one, never when one would be lost or made up."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls.agents.effects.ledger_copy import PARKED, REFUSED, RETURNED, SAME, digest, judge
from intent_ls.agents.sandbox import bwrap
from tests.agents.effects_helpers import LEDGER, LEDGER_REWRITES, Agent, git_workspace, script
from tests.support import git

MAP = ".orchestration/intent_map.md"
sandboxed = pytest.mark.skipif(not bwrap.works()[0], reason="bubblewrap cannot run here")


@pytest.fixture
def ws(governed: Path) -> Path:
    return git_workspace(governed)


def _edited(ws: Path, agent: Agent) -> bytes:
    """A committed ledger, then an edit of the agent's recorded after it: the ledger
    holds a record since the commit, as it does in nearly every session."""
    agent.shell("echo 'x = 1' > src/made.py")
    (ws / MAP).write_text("# Intent map\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "ledger committed")
    agent.shell("echo '# more' >> src/app.py")
    (ws / MAP).write_text("# Intent map\n\nsrc/app.py\n")  # as an editor's server renders it
    ledger = (ws / LEDGER).read_bytes()
    assert ledger != git(ws, "show", f"HEAD:{LEDGER}").encode()
    return ledger


HEAD = b'{"id":"1"}\n'
TAIL = HEAD + b'{"id":"2"}\n'


def test_records_go_only_into_a_stash_that_holds_them() -> None:
    assert judge(TAIL, TAIL, (), {}).outcome == SAME
    assert judge(TAIL, HEAD, (TAIL,), {}) == (PARKED, digest(TAIL))
    assert judge(TAIL, None, (TAIL,), {}) == (PARKED, digest(TAIL))  # stash -u took it
    assert judge(TAIL, HEAD, (), {}).outcome == REFUSED  # no stash holds the records
    assert judge(TAIL, HEAD, (HEAD,), {}).outcome == REFUSED
    assert judge(TAIL, HEAD[:-1], (TAIL,), {}).outcome == REFUSED  # not whole lines


def test_records_come_back_only_as_the_ledger_that_was_parked() -> None:
    parked = {digest(TAIL): "stash"}
    assert judge(HEAD, TAIL, (), parked).outcome == RETURNED
    assert judge(None, TAIL, (), parked).outcome == RETURNED
    assert judge(HEAD, TAIL, (), {}).outcome == REFUSED
    assert judge(HEAD, TAIL + b'{"id":"3"}\n', (), parked).outcome == REFUSED
    assert judge(b'{"id":"0"}\n', TAIL, (), parked).outcome == REFUSED  # not an extension


@sandboxed
@pytest.mark.parametrize("name", ["claude-code", "gemini"])
def test_stash_and_pop_carry_the_ledgers_records_and_lose_none(ws: Path, name: str) -> None:
    """Through Claude Code's shell prefix and Gemini CLI's rewritten command alike: the
    stash takes the edit and its record, and git says so with its own exit status; the
    stash's undoing of the edit is not recorded (it is parked with its record), and
    the pop brings both back, recorded once."""
    agent = Agent(ws, name)
    agent.select("INT-APP")
    ledger = _edited(ws, agent)
    _, told = agent.shell("git stash")
    assert agent.done is not None and agent.done.returncode == 0, agent.done
    assert "went into the stash" in told
    assert git(ws, "status", "--porcelain") == ""
    assert (ws / LEDGER).read_bytes() == git(ws, "show", f"HEAD:{LEDGER}").encode()
    _, told = agent.shell("git stash pop")
    assert agent.done is not None and agent.done.returncode == 0, agent.done
    assert "parked in the stash are back" in told and "not kept" not in told
    assert (ws / LEDGER).read_bytes() == ledger
    assert (ws / MAP).read_text().endswith("src/app.py\n")
    assert (ws / "src" / "app.py").read_text().endswith("# more\n")
    assert git(ws, "stash", "list") == ""
    # Nothing was put back, held or taken as changed between the calls.
    check = [sys.executable, "-m", "intent_ls", "check", "--workspace", str(ws)]
    done = subprocess.run(check, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


@sandboxed
@pytest.mark.parametrize("attack", LEDGER_REWRITES)
def test_a_ledger_git_or_a_script_rewrote_otherwise_stays_as_it_was(ws: Path, attack: str) -> None:
    """Records leave the ledger only into a stash that holds them and come back only
    from a stash intent-ls saw them go into: a record made up (by hand, or in a stash
    the command stored itself) or one dropped without a stash is not taken, whatever
    git's exit status said."""
    agent = Agent(ws)
    agent.select("INT-APP")
    ledger = _edited(ws, agent)
    _, told = agent.shell(attack)
    now = (ws / LEDGER).read_bytes()
    assert now.startswith(ledger), told  # records after it: the call's own, recorded
    assert b"forged" not in now and b"made-up" not in now
    assert (ws / LEDGER).is_file() and not (ws / LEDGER).is_symlink()
    assert f"{LEDGER}: " in told and "not kept" in told


@sandboxed
def test_the_sidecars_other_files_stay_and_new_or_forged_ones_are_dropped(ws: Path) -> None:
    agent = Agent(ws)
    agent.select("INT-APP")
    spec = (ws / ".orchestration" / "active_intents.yaml").read_bytes()
    _, told = agent.shell(
        script(
            "echo '# wider' >> .orchestration/active_intents.yaml; echo spec=$?\n"
            "echo 'x: 1' > .orchestration/extra.yaml; echo new=$?\n"
            "echo '# a map nobody derived' >> .orchestration/intent_map.md"
        )
    )
    assert agent.done is not None
    assert "spec=1" in agent.done.stdout and "new=0" in agent.done.stdout
    assert "Read-only file system" in agent.done.stderr
    assert (ws / ".orchestration" / "active_intents.yaml").read_bytes() == spec
    assert not (ws / ".orchestration" / "extra.yaml").exists()
    assert ".orchestration/extra.yaml: made or changed in the sandbox's copy" in told
    assert not (ws / MAP).exists()  # taken only with records git moved, as git holds it
    assert ".orchestration/intent_map.md: made or changed in the sandbox's copy" in told


@sandboxed
def test_a_stash_not_seen_parked_stays_listed_when_its_ledger_is_not_taken(ws: Path) -> None:
    """A stash a human made in a terminal (or before this intent-ls): popped by the
    agent, its records are not taken, and the stash goes back on the list so that they
    are not lost with it."""
    agent = Agent(ws)
    agent.select("INT-APP")
    ledger = _edited(ws, agent)
    git(ws, "stash")
    stash = git(ws, "rev-parse", "refs/stash").strip()
    _, told = agent.shell("git stash pop")
    assert agent.done is not None and agent.done.returncode == 0, agent.done
    assert "git's change to it was not kept" in told
    assert f"the stash it came from ({stash[:12]}) is on the stash list again" in told
    assert git(ws, "rev-parse", "refs/stash").strip() == stash
    assert git(ws, "show", f"refs/stash:{LEDGER}").encode() == ledger
