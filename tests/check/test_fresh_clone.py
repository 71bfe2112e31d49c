"""A fresh clone's ``check`` answers from the verifying pass (``check/answers.py``), a warm
workspace's from the index cache: the same findings either way, on the same ledgers, and
the same answers to each question the rule asks."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from intent_ls.check.answers import ScannedAnswers
from intent_ls.check.git import Repo
from intent_ls.common.hashing import hash_key
from intent_ls.ledger.index import CACHE_RELPATH, TraceIndex, json_rows
from intent_ls.ledger.merge import merge_versions
from intent_ls.ledger.records import RecordedVerdict
from intent_ls.ledger.store import LEDGER_RELPATH
from intent_ls.ledger.verify import Interest, run, verify_ledger
from intent_ls.policy.verdicts import DESTRUCTIVE_EDIT, OUT_OF_SCOPE
from tests.check.conftest import GitRepo

APP = "def handler(request):\n    return respond(request)\n"
MOVED = "def moved(value):\n    total = value * 3 + 7\n    return total - 1\n"


@pytest.fixture(params=["one process", "two processes"])
def verifying(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways of verifying: the second process hands its wanted lines back too."""
    monkeypatch.setattr(run, "PARALLEL_MIN", 0 if request.param == "two processes" else 1 << 62)
    return str(request.param)


def cold_and_warm(
    repo: GitRepo, *args: str, builds_index: bool = False
) -> list[tuple[str, str, int, int, str]]:
    """The findings without an index cache (none is made unless a question falls outside
    what the pass collected) and with one: equal."""
    cache = repo.root / CACHE_RELPATH
    shutil.rmtree(cache.parent, ignore_errors=True)
    cold = repo.findings(*args)
    assert cache.exists() == builds_index
    index = TraceIndex.for_workspace(repo.root)
    index.refresh()
    index.close()
    warm = repo.findings(*args)
    assert cache.exists()
    assert warm == cold
    return [(f["rule"], f["path"], f["start_line"], f["end_line"], f["message"]) for f in cold]


def test_covered_uncovered_and_wrong_intent(repo: GitRepo, verifying: str) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.save("src/app.py", APP + "\n\ndef feature(x):\n    return x * 2\n")
    repo.save("docs/guide.md", "# Guide\n\nSome words here.\n", intent="INT-DOCS")
    repo.save("src/other.py", "VALUE = 1\n", intent="INT-DOCS")
    repo.write("src/app.py", repo.read("src/app.py") + "print('debug')\n")
    found = cold_and_warm(repo)
    assert [f[:4] for f in found] == [
        ("uncovered-change", "src/app.py", 7, 7),
        ("intent-not-owner", "src/other.py", 1, 1),
    ]


def test_moved_code_and_its_verdicts(repo: GitRepo, verifying: str) -> None:
    """Code moved from another file is found by its window hash; the record's verdict
    asks about approvals of that other path, which the pass did not collect (the index
    is then built and answers)."""
    repo.write("src/app.py", APP)
    repo.commit("base")
    verdict = RecordedVerdict(OUT_OF_SCOPE, "outside", {})
    repo.save("lib/util.py", MOVED, verdicts=[verdict])
    repo.save("src/tools.py", MOVED.replace("moved", "kept"))
    repo.commit("records")
    repo.write("src/app.py", APP + "\n\n" + MOVED + "\n\n" + MOVED.replace("moved", "kept"))
    found = cold_and_warm(repo, "--base", "HEAD", builds_index=True)
    assert [f[:4] for f in found] == [
        ("uncovered-change", "src/app.py", 3, 4),  # the blank lines around
        ("unapproved-verdict", "src/app.py", 5, 7),
        ("uncovered-change", "src/app.py", 8, 9),
    ]  # and src/tools.py's function, moved too, is covered


def test_records_without_ranges_and_approvals(repo: GitRepo, verifying: str) -> None:
    body = "".join(f"line{i} = {i}\n" for i in range(1, 8))
    repo.write("src/data.py", body)
    repo.write("src/gone.py", "A = 1\nB = 2\n")
    repo.commit("base")
    repo.save("src/data.py", body.replace("line3 = 3\n", ""))
    assert b'"ranges":[]' in (repo.root / LEDGER_RELPATH).read_bytes()  # a pure deletion
    assert cold_and_warm(repo) == []
    repo.write("src/data.py", repo.read("src/data.py").replace("line6 = 6\n", ""))
    (repo.root / "src/gone.py").unlink()
    found = cold_and_warm(repo)
    assert [f[:4] for f in found] == [
        ("uncovered-deletion", "src/data.py", 5, 5),
        ("uncovered-deletion", "src/gone.py", 1, 2),
    ]
    repo.write("src/gone.py", "A = 1\nB = 2\n")
    repo.approve("src/gone.py", DESTRUCTIVE_EDIT, 1, 2)
    (repo.root / "src/gone.py").unlink()
    assert [f[1] for f in cold_and_warm(repo)] == ["src/data.py"]


def test_a_merged_ledger(repo: GitRepo, verifying: str) -> None:
    repo.write("src/app.py", APP)
    repo.save("src/app.py", APP + "# base\n")
    repo.commit("base")
    ledger = repo.root / LEDGER_RELPATH
    base = ledger.read_bytes()
    repo.save("src/app.py", APP + "# base\n# ours\n")
    ours = ledger.read_bytes()
    ledger.write_bytes(base)
    repo.save("src/lib.py", "THEIRS = 1\n")
    theirs = ledger.read_bytes()
    ledger.write_bytes(merge_versions(base, ours, theirs))
    repo.write("src/app.py", APP + "# base\n# ours\n")
    assert verify_ledger(ledger).ok
    assert cold_and_warm(repo) == []


def test_an_invalid_line(repo: GitRepo, verifying: str) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.save("src/app.py", APP + "# one\n")
    with (repo.root / LEDGER_RELPATH).open("ab") as f:
        f.write(b'{"not": "a record"}\n')
    repo.save("src/app.py", APP + "# one\n# two\n")
    found = cold_and_warm(repo)
    assert [f[:4] for f in found] == [("ledger-invalid", LEDGER_RELPATH.as_posix(), 2, 2)]


def test_a_path_the_fast_path_cannot_spell(repo: GitRepo, verifying: str) -> None:
    """A quote in a file name is escaped on the ledger: that line takes the full check
    and is handed back whole, not searched for."""
    name = 'src/q"uote.py'
    repo.write(name, APP)
    repo.commit("base")
    repo.save(name, APP + "# saved\n")
    repo.write(name, APP + "# saved\n# not saved\n")
    assert [f[:4] for f in cold_and_warm(repo)] == [("uncovered-change", name, 4, 4)]


def test_the_ledger_is_not_among_the_changes(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.save("src/app.py", APP + "# saved\n")
    base = repo.commit("base")
    repo.save("src/app.py", APP + "# saved\n# again\n")
    repo.write("src/[x].py", "X = 1\n")
    ledger = LEDGER_RELPATH.as_posix()
    git = Repo(repo.root)
    everything = [c.path for c in git.changes(git.resolve_base(base))]
    assert everything == sorted([ledger, "src/[x].py", "src/app.py"])
    skipped = git.changes(git.resolve_base(base), skip=[ledger, "src/[x].py"])
    assert [c.path for c in skipped] == ["src/app.py"]


def _hostile_ledger(repo: GitRepo) -> Path:
    """Valid records in forms the fast path does not take, beside the writer's."""
    repo.save("src/a.py", MOVED)
    repo.save("src/b.py", MOVED + "# b\n")
    record = repo.save("src/c.py", "C = 1\n")
    ledger = repo.ledger
    foreign = json.loads(json.dumps(record))
    del foreign["metadata"]["intent_ls"]["digest"]
    rng = foreign["files"][0]["conversations"][0]["ranges"][0]
    rng["content_hash"] = rng["content_hash"].upper().replace("SHA256", "sha256", 1)
    foreign["files"][0]["path"] = 'src/q"uote.py'
    ledger.append(foreign)
    other = json.loads(json.dumps(record))
    other["files"][0]["conversations"][0]["ranges"][0]["content_hash"] = "MD5:" + "ab" * 16
    other["files"][0]["path"] = "src/a.py"
    ledger.append(other)
    repo.save("src/a.py", MOVED + "# again\n")
    return ledger.path


def test_scanned_answers_equal_the_index(repo: GitRepo, verifying: str) -> None:
    ledger = _hostile_ledger(repo)
    index = TraceIndex.for_workspace(repo.root)
    rows = [json_rows(n, 0, line) for n, line in enumerate(ledger.read_bytes().splitlines(), 1)]
    paths = {t[1] for _, touches in rows for t in touches if t[1]} | {"src/none.py"}
    keys = {t[4] for _, touches in rows for t in touches if t[4] is not None} | {42}
    interest = Interest(frozenset(paths), frozenset(keys))
    result = verify_ledger(ledger, interest=interest)
    assert result.ok

    def unexpected() -> TraceIndex:
        raise AssertionError("asked the index")

    answers = ScannedAnswers(ledger, interest, result.wanted, unexpected)
    for path in paths:
        assert answers.records_for_path(path) == index.records_for_path(path), path
        assert answers.records_for_path(path, 1) == index.records_for_path(path, 1)
    digests = {
        rng["content_hash"]
        for line in ledger.read_bytes().splitlines()
        for f in json.loads(line)["files"]
        for conv in f["conversations"]
        for rng in conv["ranges"]
    }
    for digest in digests:
        if len(digest) >= 23 and hash_key_or_none(digest) in keys:
            assert answers.records_for_hash(digest) == index.records_for_hash(digest)
            assert answers.records_for_hash(digest, 1) == index.records_for_hash(digest, 1)
    assert answers.known_keys(keys) == index.known_keys(keys)
    assert answers.known_keys({42}) == set()
    # questions outside the interest go to the index
    outside = ScannedAnswers(ledger, interest, result.wanted, lambda: index)
    assert outside.records_for_path("src/elsewhere.py") == []
    assert outside.known_keys({7}) == index.known_keys({7})
    assert outside.mutated_paths() == index.mutated_paths()
    index.close()


def hash_key_or_none(digest: str) -> int | None:
    try:
        return hash_key(digest)
    except ValueError:
        return None


def test_an_index_cache_the_repository_ships_is_not_believed(repo: GitRepo) -> None:
    """A repository that commits ``.orchestration/.local/trace-index.sqlite`` (``git add
    -f``) hands every fresh clone an index it wrote: here one that hides the record
    carrying an unapproved verdict. ``check`` answers from the ledger instead, and leaves
    the committed file as it was."""
    repo.write("src/app.py", APP)
    base = repo.commit("base")
    verdict = RecordedVerdict(OUT_OF_SCOPE, "outside", {})
    repo.save("src/app.py", APP + "\n\ndef feature(x):\n    return x * 2\n", verdicts=[verdict])
    honest = cold_and_warm(repo, "--base", base)
    assert [f[0] for f in honest] == ["unapproved-verdict"]
    cache = repo.root / CACHE_RELPATH
    with sqlite3.connect(cache) as db:
        db.execute("DELETE FROM touches")
    db.close()
    repo.git("add", "-f", str(cache.relative_to(repo.root)))
    repo.commit("the change, and an index that forgets it")
    planted = cache.read_bytes()
    found = repo.findings("--base", base)
    assert [
        (f["rule"], f["path"], f["start_line"], f["end_line"], f["message"]) for f in found
    ] == honest
    assert cache.read_bytes() == planted
