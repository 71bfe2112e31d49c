"""``intent-ls init``, ``merge-driver`` and ``trace repair`` as a user runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls.workspace.setup import GITIGNORE_RELPATH, clone_setup_problems
from tests.support import intent_ls

pytestmark = pytest.mark.usefixtures("git_identity")


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "objects" not in p.parts
    }


def test_init_creates_what_is_missing_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    first = intent_ls("init", "--workspace", str(tmp_path), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    for created in (
        "created: .orchestration/active_intents.yaml",
        "created: .intentignore",
        "created: .orchestration/.gitignore",
        "created: .orchestration/.gitattributes",
        'configured: .git/config [merge "intent-ls-ledger"]',
        "next steps:",
        "select an intent",
        "intent-ls check",
        "hooks",
    ):
        assert created in first.stdout
    assert intent_ls("validate", "--workspace", str(tmp_path), cwd=tmp_path).returncode == 0
    before = _tree(tmp_path)
    second = intent_ls("init", "--workspace", str(tmp_path), cwd=tmp_path)
    assert second.returncode == 0
    assert second.stdout.startswith("nothing to do")
    assert _tree(tmp_path) == before
    attributes = (tmp_path / ".orchestration" / ".gitattributes").read_text()
    assert "agent_trace.jsonl merge=intent-ls-ledger" in attributes
    check = subprocess.run(
        ["git", "check-attr", "merge", ".orchestration/agent_trace.jsonl"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert check.stdout.strip().endswith("merge: intent-ls-ledger")


def test_init_never_overwrites(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    mine = {
        ".orchestration/active_intents.yaml": "active_intents: []\n",
        ".intentignore": "mine/\n",
        GITIGNORE_RELPATH: "mine\n",
        ".orchestration/.gitattributes": "*.bin binary",  # no final newline
    }
    for rel, text in mine.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    result = intent_ls("init", "--workspace", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 0
    for rel, text in list(mine.items())[:3]:
        assert (tmp_path / rel).read_text() == text
    assert "updated: .orchestration/.gitattributes" in result.stdout
    assert (tmp_path / ".orchestration/.gitattributes").read_text().startswith("*.bin binary\n")


def test_init_outside_git_says_so(tmp_path: Path) -> None:
    result = intent_ls("init", "--workspace", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 0 and "not a git repository" in result.stdout
    assert (tmp_path / ".intentignore").exists()


def test_clone_setup_problems(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".orchestration").mkdir()
    assert clone_setup_problems(tmp_path) == []  # no ledger yet: nothing to protect
    (tmp_path / ".orchestration" / "agent_trace.jsonl").write_bytes(b"")
    assert len(clone_setup_problems(tmp_path)) == 2
    assert intent_ls("init", "--workspace", str(tmp_path), cwd=tmp_path).returncode == 0
    assert clone_setup_problems(tmp_path) == []
    # a driver that settles every merge by keeping one side drops the other's records
    git = ["git", "-C", str(tmp_path), "config", "merge.intent-ls-ledger.driver", "true"]
    subprocess.run(git, check=True)
    [problem] = clone_setup_problems(tmp_path)
    assert "runs 'true', not intent-ls" in problem
    assert intent_ls("init", "--workspace", str(tmp_path), cwd=tmp_path).returncode == 0
    assert clone_setup_problems(tmp_path) == []


def test_merge_paths_never_import_pygls(tmp_path: Path) -> None:
    for name in ("base", "ours", "theirs"):
        (tmp_path / name).write_bytes(b"")
    probe = (
        "import sys\n"
        "from intent_ls.cli.main import main\n"
        f"d = {str(tmp_path)!r}\n"
        "main(['merge-driver', d + '/base', d + '/ours', d + '/theirs'])\n"
        "main(['init', '-w', d])\n"
        "main(['trace', 'repair', '-w', d])\n"
        "main(['trace', 'verify', '-w', d])\n"
        "heavy = [m for m in ('pygls', 'lsprotocol', 'tree_sitter') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_merge_driver_reports_unreadable_files_and_keeps_ours(tmp_path: Path) -> None:
    (tmp_path / "ours").write_bytes(b"kept\n")
    result = intent_ls("merge-driver", "missing-base", "ours", "theirs", cwd=tmp_path)
    assert result.returncode == 1 and "intent-ls merge-driver:" in result.stderr
    assert "Traceback" not in result.stderr
    assert (tmp_path / "ours").read_bytes() == b"kept\n"


def test_repair_after_a_save_on_a_conflicted_ledger(tmp_path: Path) -> None:
    """A save appended to a conflicted ledger quarantines the closing marker (an
    unparsable last line): repair still keeps every record of both sides."""
    from intent_ls.ledger.records import build_mutation_record
    from intent_ls.ledger.store import Ledger, ledger_path
    from intent_ls.policy.approvals import Contributor

    def mutation(root: Path, i: int) -> dict:
        record = build_mutation_record(
            root,
            "a.py",
            f"a = {i}\n",
            f"a = {i + 1}\n",
            intent_id="INT-001",
            session_id="s",
            contributor=Contributor("human"),
        )
        assert record is not None
        return record

    sides = []
    for name in ("ours", "theirs"):
        (tmp_path / name).mkdir()
        ledger = Ledger(tmp_path / name / "t.jsonl", fsync=False)
        ledger.append(mutation(tmp_path, 1 if name == "ours" else 2))
        sides.append(ledger.path.read_bytes())
    path = ledger_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"<<<<<<< HEAD\n" + sides[0] + b"=======\n" + sides[1] + b">>>>>>> b\n")
    Ledger(path, fsync=False).append(mutation(tmp_path, 3))
    verified = intent_ls("trace", "verify", "--workspace", str(tmp_path), cwd=tmp_path)
    assert verified.returncode == 1 and "intent-ls trace repair" in verified.stderr
    repaired = intent_ls("trace", "repair", "--workspace", str(tmp_path), cwd=tmp_path)
    assert repaired.returncode == 0, repaired.stdout
    lines = path.read_bytes().splitlines()
    assert sides[0].rstrip(b"\n") in lines and sides[1].rstrip(b"\n") in lines
    assert len(lines) == 4  # both sides, the save, and the merge record
    again = intent_ls("trace", "repair", "--workspace", str(tmp_path), cwd=tmp_path)
    assert again.stdout.startswith("nothing to repair")


def test_a_merge_never_runs_the_merged_branchs_own_intent_ls(tmp_path: Path) -> None:
    """Git runs the driver in the repository's top folder; an ``intent_ls/`` package
    a branch brought there must not be what a merge runs."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    assert intent_ls("init", "--workspace", str(repo), cwd=repo).returncode == 0

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    ledger = repo / ".orchestration" / "agent_trace.jsonl"
    ledger.write_bytes(b"")
    git("add", "-A")
    git("commit", "-qm", "base")
    planted = repo / "intent_ls"  # merged in earlier, unnoticed among other files
    planted.mkdir()
    (planted / "__init__.py").write_text("")
    (planted / "__main__.py").write_text(
        "import pathlib; pathlib.Path('PWNED').write_text('ran'); raise SystemExit(0)\n"
    )
    git("add", "-A")
    git("commit", "-qm", "vendored")
    git("checkout", "-qb", "side")
    ledger.write_bytes(b"side\n")
    git("commit", "-qam", "side")
    git("checkout", "-q", "main")
    ledger.write_bytes(b"main\n")
    git("commit", "-qam", "main")
    subprocess.run(["git", "-C", str(repo), "merge", "-q", "side"], capture_output=True)
    assert not (repo / "PWNED").exists()
    # a clone set up before -P is told, and init replaces its driver
    old = f"{sys.executable} -m intent_ls merge-driver %O %A %B"
    git("config", "merge.intent-ls-ledger.driver", old)
    [problem] = clone_setup_problems(repo)
    assert "without -P" in problem
    # (not from the repository's folder: this harness's own ``-m`` would run the package)
    assert intent_ls("init", "--workspace", str(repo), cwd=tmp_path).returncode == 0
    assert clone_setup_problems(repo) == []
