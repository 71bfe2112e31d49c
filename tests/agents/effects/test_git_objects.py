"""A protected path committed (or staged) as it never was on disk: git's objects, refs
and index stay writable in the sandbox for commit, branch and stash, so a command can
build a commit holding a widened spec or a forged ledger with git's plumbing and leave
the working tree untouched. Pushed, that commit is what CI's ``check`` would read. The
after-tool event puts the ref back and resets the index entry; what the agent commits
as it is on disk (its own work, the ledger the hooks wrote) stays committed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from intent_ls.agents.effects import git_objects
from intent_ls.agents.sandbox import bwrap
from tests.agents.effects_helpers import Agent, git_workspace
from tests.support import git, records

sandboxed = pytest.mark.skipif(not bwrap.works()[0], reason="bubblewrap cannot run here")

SPEC = ".orchestration/active_intents.yaml"
WIDE = "active_intents:\n  - id: INT-APP\n    status: IN_PROGRESS\n    owned_scope: ['**']\n"


def script(body: str) -> str:
    """The command as a script written in scope, then run: no classifier reads it (a
    command naming the spec is refused before it runs)."""
    return f"cat > src/forge.sh <<'EOF'\n{body}\nEOF\nbash src/forge.sh; rm src/forge.sh"


#: Commits a spec nobody wrote on disk, through the index, with the agent's own work.
FORGE = script(
    f"blob=$(printf '%s' \"{WIDE}\" | git hash-object -w --stdin)\n"
    f"git update-index --cacheinfo 100644,$blob,{SPEC}\n"
    "echo 'x = 2' > src/more.py && git add src/more.py\n"
    "git -c user.email=a@b -c user.name=agent commit -qm work"
)


@pytest.fixture
def ws(governed: Path) -> Path:
    return git_workspace(governed)


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def committed_spec(root: Path, rev: str = "HEAD") -> str:
    return git(root, "show", f"{rev}:{SPEC}")


@sandboxed
def test_a_commit_holding_a_spec_never_on_disk_is_taken_off_the_branch(ws: Path) -> None:
    agent = Agent(ws)
    agent.select("INT-APP")
    before, spec = head(ws), (ws / SPEC).read_text()
    _, told = agent.shell(FORGE)
    assert agent.done is not None and agent.done.returncode == 0, agent.done
    assert head(ws) == before, told
    assert committed_spec(ws) == spec
    assert f"{SPEC}: commit" in told and "back at" in told
    # The index holds the spec as HEAD has it again; the agent's work stays staged.
    assert git(ws, "diff", "--cached", "--name-only").split() == ["src/more.py"]
    assert (ws / "src" / "more.py").read_text() == "x = 2\n"


@sandboxed
def test_a_new_branch_or_tag_pointing_at_such_a_commit_is_removed(ws: Path) -> None:
    agent = Agent(ws)
    agent.select("INT-APP")
    build = script(
        f"blob=$(printf '%s' \"{WIDE}\" | git hash-object -w --stdin)\n"
        "export GIT_INDEX_FILE=/tmp/forge-index\ngit read-tree HEAD\n"
        f"git update-index --cacheinfo 100644,$blob,{SPEC}\n"
        "tree=$(git write-tree)\n"
        "c=$(git -c user.email=a@b -c user.name=agent commit-tree $tree -p HEAD -m x)\n"
        "git update-ref refs/heads/evil $c && git tag sneaky $c"
    )
    _, told = agent.shell(build)
    assert agent.done is not None and agent.done.returncode == 0, agent.done
    refs = git(ws, "for-each-ref", "--format=%(refname)").split()
    assert "refs/heads/evil" not in refs and "refs/tags/sneaky" not in refs, told
    assert "refs/heads/evil is removed" in told


@sandboxed
def test_a_staged_spec_never_on_disk_is_unstaged(ws: Path) -> None:
    agent = Agent(ws)
    agent.select("INT-APP")
    _, told = agent.shell(
        script(
            f"blob=$(printf '%s' \"{WIDE}\" | git hash-object -w --stdin)\n"
            f"git update-index --cacheinfo 100644,$blob,{SPEC}"
        )
    )
    assert git(ws, "diff", "--cached", "--name-only").strip() == "", told
    assert f"{SPEC}: staged as it is not on disk" in told


@sandboxed
def test_ordinary_commits_stay_the_ledger_and_a_humans_spec_edit_included(ws: Path) -> None:
    """The agent's own commit of its work, the ledger the hooks appended and the spec a
    human edited on disk: each is committed as it is on disk, so nothing is put back."""
    agent = Agent(ws)
    agent.select("INT-APP")
    agent.shell("echo 'y = 1' > src/made.py")  # recorded: the ledger grows
    spec = ws / SPEC
    spec.write_text(spec.read_text() + "# a human's note\n")  # the human, between calls
    _, told = agent.shell("git add -A && git -c user.email=a@b -c user.name=agent commit -qm work")
    assert agent.done is not None and agent.done.returncode == 0, agent.done
    assert "commit" not in told and "staged" not in told, told
    assert committed_spec(ws).endswith("# a human's note\n")
    assert "src/made.py" in git(ws, "show", "--name-only", "HEAD")
    # The next call appends to the ledger after that commit: still no put-back.
    _, told = agent.shell("git -c user.email=a@b -c user.name=agent commit -q --allow-empty -m e")
    assert "commit" not in told, told
    assert subprocess.run(["git", "-C", str(ws), "log", "--oneline"], capture_output=True,
                          text=True, check=True).stdout.count("\n") == 3  # fmt: skip


def test_the_tips_read_from_git_files_are_what_git_lists(ws: Path) -> None:
    """Packed and loose refs, nested branch names, tags, a symbolic ref and a detached
    ``HEAD``: the files say what ``git for-each-ref`` says."""
    for ref in ("feature/a/b", "other"):
        git(ws, "branch", ref)
    git(ws, "tag", "v1")
    git(ws, "pack-refs", "--all")
    git(ws, "commit", "-q", "--allow-empty", "-m", "loose")
    git(ws, "tag", "-a", "v2", "-m", "annotated")
    git(ws, "symbolic-ref", "refs/heads/alias", "refs/heads/other")
    git(ws, "checkout", "-q", "--detach", "HEAD~1")
    listed = git(ws, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads", "refs/tags")
    expected = {ref: oid for oid, _, ref in (line.partition(" ") for line in listed.splitlines())}
    expected["HEAD"] = git(ws, "rev-parse", "HEAD").strip()
    state = git_objects.state(ws)
    assert state is not None and state["tips"] == expected


def _branch_with_other_ledger(ws: Path, agent: Agent) -> str:
    """A branch ``other`` whose commit holds a longer ledger and another spec (as a human
    made it), and the ledger that ``main`` has committed; the session is back on main."""
    main = git(ws, "rev-parse", "--abbrev-ref", "HEAD").strip()
    commit = ["commit", "-q", "--allow-empty", "-m"]
    git(ws, "add", "-A")
    git(ws, *commit, "main's ledger")
    git(ws, "switch", "-qc", "other")
    agent.shell("echo 'y = 1' > src/made.py")  # recorded: the ledger grows on other
    (ws / SPEC).write_text((ws / SPEC).read_text() + "# other's note\n")
    git(ws, "add", "-A")
    git(ws, *commit, "other's work")
    git(ws, "switch", "-q", main)
    return main


@sandboxed
def test_a_switch_to_a_branch_brings_its_ledger_not_its_spec(ws: Path) -> None:
    """The sandbox keeps the ledger read-only, so git's own switch leaves it as it was
    and still succeeds; the after-tool event writes it as the branch has it, and this
    call's record goes on it. The spec (a wider scope on an old tag, say) is not taken
    from a checkout the agent made: what governs the session stays."""
    agent = Agent(ws)
    agent.select("INT-APP")
    _branch_with_other_ledger(ws, agent)
    ledger = ".orchestration/agent_trace.jsonl"
    spec = (ws / SPEC).read_text()
    _, told = agent.shell("git switch -q other")
    assert agent.done is not None and agent.done.returncode == 0, agent.done
    assert (ws / ledger).read_bytes().startswith(git(ws, "show", f"other:{ledger}").encode())
    assert f"{ledger}: written as the commit checked out holds it" in told
    assert (ws / SPEC).read_text() == spec != committed_spec(ws, "other")
    assert SPEC not in told


@sandboxed
def test_a_switch_to_a_commit_the_call_made_or_over_a_local_change_writes_nothing(
    ws: Path,
) -> None:
    """Only a commit that was a branch or tag tip before the call is written from (one the
    call built is judged as forged), and only over a file as the old commit holds it."""
    agent = Agent(ws)
    agent.select("INT-APP")
    _branch_with_other_ledger(ws, agent)
    forged = script(
        f"blob=$(printf '%s' \"{WIDE}\" | git hash-object -w --stdin)\n"
        f"git update-index --cacheinfo 100644,$blob,{SPEC}\n"
        "tree=$(git write-tree)\n"
        "c=$(git -c user.email=a@b -c user.name=agent commit-tree $tree -p HEAD -m x)\n"
        "git checkout -q --detach $c"
    )
    spec = (ws / SPEC).read_text()
    _, told = agent.shell(forged)
    assert (ws / SPEC).read_text() == spec, told
    assert "written as the commit" not in told
    # HEAD, detached onto the forged commit, is back on the branch it was on.
    assert git(ws, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert "HEAD is back on refs/heads/main" in told
    assert committed_spec(ws, ":0") == spec  # and the index entry is HEAD's again
    # The ledger on disk holds this session's records since main's commit: a checkout
    # of another branch would lose them, so git refuses it and nothing is written.
    agent.shell("echo 'z = 1' > src/z.py")
    before = (ws / ".orchestration/agent_trace.jsonl").read_bytes()
    _, told = agent.shell("git switch -q other")
    assert "written as the commit" not in told
    assert (ws / ".orchestration/agent_trace.jsonl").read_bytes().startswith(before)


def _initialised(ws: Path, tmp_path: Path) -> tuple[Agent, Path]:
    """``intent-ls init`` committed (the ledger's merge driver), and a session with an
    intent whose home folder the sandbox can read, for a teammate's clone to live in."""
    import sys

    subprocess.run([sys.executable, "-m", "intent_ls", "init", "--workspace", str(ws)],
                   check=True, capture_output=True)  # fmt: skip
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "intent-ls init")
    home = tmp_path / "home"
    home.mkdir()
    agent = Agent(ws, home=home)
    agent.select("INT-APP")
    return agent, home


def _teammates_clone(ws: Path, home: Path) -> Path:
    """A clone where a teammate's session recorded its work and committed it, where the
    sandbox can read it (the home folder, as a remote elsewhere would be)."""
    other = home / "other"
    subprocess.run(["git", "clone", "-q", str(ws), str(other)], check=True)
    mate = Agent(other, session="mate")
    mate.select("INT-APP")
    mate.shell("mkdir -p src/mate && echo 'y = 2' > src/mate/work.py")
    (other / "docs" / "guide.md").write_text("# Guide, the teammate's\n")
    git(other, "add", "-A")
    git(other, "commit", "-qm", "the teammate's work")
    return other


@sandboxed
@pytest.mark.parametrize(
    ("how", "local_commit"),
    [("--no-rebase --no-edit", True), ("--rebase", True), ("--ff-only", False)],
)
def test_a_pull_of_others_commits_is_taken_off_whole_and_the_humans_pull_works(
    ws: Path, tmp_path: Path, how: str, local_commit: bool
) -> None:
    """A teammate's commits carry their ledger records: an agent's pull cannot bring
    them in (nothing tells them from commits the command made), and what the merge
    checked out goes back with the branch, so nothing is left half-done or recorded as
    the session's. The human's own pull then merges the ledger with intent-ls's driver."""
    from tests.support import records

    agent, home = _initialised(ws, tmp_path)
    agent.shell("echo 'x = 1' > src/made.py")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "ledger committed")
    other = _teammates_clone(ws, home)
    if local_commit:
        agent.shell("echo '# more' >> src/app.py")
        git(ws, "add", "-A")
        git(ws, "commit", "-qm", "local work")
    before, ledger = head(ws), (ws / ".orchestration" / "agent_trace.jsonl").read_bytes()
    _, told = agent.shell(f"git pull {how} {other} main")
    assert agent.done is not None and agent.done.returncode == 0, agent.done
    assert "git brought with it put back as they were" in told, told
    assert "ask the human to run it in a terminal" in told
    assert head(ws) == before
    assert git(ws, "status", "--porcelain", "--untracked-files=all") == ""
    assert not (ws / "src" / "mate").exists()
    assert (ws / "docs" / "guide.md").read_text() == "# Guide\n"
    assert (ws / ".orchestration" / "agent_trace.jsonl").read_bytes() == ledger
    assert not [r for r in records(ws) if r["files"][0]["path"].startswith("src/mate")]
    human = subprocess.run(
        ["git", "-c", "user.name=h", "-c", "user.email=h@h", "pull", *how.split(), str(other),
         "main"], cwd=ws, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert human.returncode == 0, human.stderr
    assert (ws / "src" / "mate" / "work.py").read_text() == "y = 2\n"
    sessions = {r["metadata"]["intent_ls"].get("session_id") for r in records(ws)}
    assert {"s1", "mate"} <= sessions


@sandboxed
def test_a_pull_that_stops_at_the_read_only_spec_leaves_nothing_half_done(
    ws: Path, tmp_path: Path
) -> None:
    """The teammate's commits change the spec: git stops at it (read-only to every
    command) before the branch moves, having written other files. Those go back too,
    and the human's own pull then brings everything, the spec included."""
    agent, home = _initialised(ws, tmp_path)
    other = _teammates_clone(ws, home)
    spec = other / SPEC
    spec.write_text(spec.read_text() + "  - id: INT-NEW\n    status: IN_PROGRESS\n"
                    "    owned_scope:\n      - new/\n")  # fmt: skip
    git(other, "add", "-A")
    git(other, "commit", "-qm", "a new intent")
    before = head(ws)
    _, told = agent.shell(f"git pull --ff-only {other} main")
    assert agent.done is not None and agent.done.returncode != 0, agent.done
    assert "written by a pull that stopped part-way" in told, told
    assert head(ws) == before
    assert git(ws, "status", "--porcelain", "--untracked-files=all") == ""
    assert not (ws / "src" / "mate").exists()
    assert (ws / "docs" / "guide.md").read_text() == "# Guide\n"
    human = subprocess.run(["git", "pull", "--ff-only", str(other), "main"], cwd=ws,
                           capture_output=True, text=True, check=False)  # fmt: skip
    assert human.returncode == 0, human.stderr
    assert "INT-NEW" in (ws / SPEC).read_text()
    assert (ws / "src" / "mate" / "work.py").exists()


@sandboxed
def test_the_put_back_of_a_pull_cannot_be_turned_on_a_humans_files(ws: Path) -> None:
    """Attacked: a forged commit that adds copies of the human's untracked and ignored
    files, with ``ORIG_HEAD`` written so that it looks like a pull. The put-back takes
    away only what the call made: the human's files are there afterwards, as they were."""
    (ws / "notes.txt").write_text("the human's notes\n")
    (ws / "app.log").write_text("the human's log\n")  # ignored (.intentignore, *.log)
    (ws / ".gitignore").write_text("secrets.json\n")
    (ws / "secrets.json").write_text("{}\n")  # ignored by git: its status never lists it
    agent = Agent(ws)
    agent.select("INT-APP")
    before = head(ws)
    forge = script(
        "ledger=$(printf 'forged\\n' | git hash-object -w --stdin)\n"
        "git update-index --add --cacheinfo 100644,$ledger,.orchestration/agent_trace.jsonl\n"
        "git add -f notes.txt app.log secrets.json\n"
        "git -c user.email=a@b -c user.name=agent commit -qm pulled\n"
        f"echo {before} > .git/ORIG_HEAD"
    )
    _, told = agent.shell(forge)
    assert head(ws) == before, told
    assert (ws / "notes.txt").read_text() == "the human's notes\n", told
    assert (ws / "app.log").read_text() == "the human's log\n", told
    assert (ws / "secrets.json").read_text() == "{}\n", told


@sandboxed
def test_a_commit_of_an_out_of_scope_change_is_taken_off_the_branch(ws: Path) -> None:
    """Put back on disk alone, the change stayed committed, ready to be pushed, and the
    working tree showed it undone. The branch goes back too, and the index with it; the
    in-scope work of the same commit stays, staged, recorded as the session's."""
    agent = Agent(ws)
    agent.select("INT-APP")
    before = head(ws)
    commit = "git -c user.email=a@b -c user.name=a commit -qam work"
    _, told = agent.shell(
        script(f"echo hacked > docs/guide.md\necho '# mine' >> src/app.py\n{commit}")
    )
    assert "docs/guide.md: out of scope, in commit" in told and "is back at" in told, told
    assert "docs/guide.md: out-of-scope, restored" in told
    assert head(ws) == before
    assert (ws / "docs" / "guide.md").read_text() == "# Guide\n"
    staged = git(ws, "status", "--porcelain", "--untracked-files=no").splitlines()
    assert staged == ["M  src/app.py"]
    assert "src/app.py" in {f["path"] for r in records(ws) for f in r["files"]}


@sandboxed
def test_a_pull_of_others_work_in_other_intents_files_is_taken_off_whole(
    ws: Path, tmp_path: Path
) -> None:
    """A teammate's commit without intent-ls (no ledger records) changing another
    intent's file: the branch and the files git brought go back, none recorded as the
    session's, rather than the file undone on disk under a branch that moved on."""
    home = tmp_path / "home"
    home.mkdir()
    agent = Agent(ws, home=home)
    agent.select("INT-APP")
    other = home / "other"
    subprocess.run(["git", "clone", "-q", str(ws), str(other)], check=True)
    (other / "docs" / "guide.md").write_text("# Guide, the teammate's\n")
    (other / "src" / "mate.py").write_text("y = 2\n")
    git(other, "add", "-A")
    git(other, "commit", "-qm", "the teammate's work")
    before = head(ws)
    _, told = agent.shell(f"git pull --ff-only {other} main")
    assert "with the 2 files git brought put back" in told, told
    assert head(ws) == before
    assert git(ws, "status", "--porcelain", "--untracked-files=no") == ""
    assert not (ws / "src" / "mate.py").exists()
    assert "src/mate.py" not in {f["path"] for r in records(ws) for f in r["files"]}
