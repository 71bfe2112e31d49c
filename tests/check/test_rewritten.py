"""The append-only anchor of ``check`` (``rewritten_since_base``) streams both ledgers;
its answer must be the one of holding them whole, which this file spells out plainly."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from intent_ls.check.append_only import rewritten_since_base
from intent_ls.check.git import GitError, Repo
from intent_ls.ledger.store import LEDGER_RELPATH


def whole_file_answer(old: bytes, current: bytes | None) -> int | None:
    """The first committed line missing from the current ledger, comparing in memory."""
    if not old or (current is not None and current.startswith(old)):
        return None
    kept = set((current or b"").split(b"\n"))
    for line, text in enumerate(old.split(b"\n")[:-1], start=1):
        if text not in kept:
            return line
    return None


CASES = {
    "appended": (b"a\nb\n", b"a\nb\nc\n"),
    "unchanged": (b"a\nb\n", b"a\nb\n"),
    "merged first": (b"a\nb\n", b"x\na\ny\nb\n"),
    "last removed": (b"a\nb\nc\n", b"a\nb\n"),
    "middle removed": (b"a\nb\nc\n", b"a\nc\nd\n"),
    "one byte changed": (b"a\nb\n", b"a\nB\n"),
    "emptied": (b"a\n", b""),
    "removed": (b"a\n", None),
    "blank committed line, current ends in newline": (b"\na\n", b"a\n"),
    "blank committed line, torn current": (b"\na\n", b"b\na"),
    "blank committed line, no current": (b"\n", None),
    "committed torn line": (b"a\nb", b"a\n"),
    "torn current line": (b"a\nb\n", b"b\na"),
    "committed empty": (b"", b"x\n"),
    "shorter current prefix": (b"a\nbb\n", b"a\nb"),
}


def make_repo(top: Path, old: bytes, object_format: str = "sha1") -> Repo:
    subprocess.run(
        ["git", "init", "-q", "-b", "main", f"--object-format={object_format}"],
        cwd=top,
        check=True,
    )
    ledger = top / LEDGER_RELPATH
    ledger.parent.mkdir(parents=True)
    ledger.write_bytes(old)
    subprocess.run(["git", "add", "-A"], cwd=top, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "base"], cwd=top, check=True)
    return Repo(top)


@pytest.mark.usefixtures("git_identity")
@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_streamed_answer_is_the_whole_file_answer(
    tmp_path: Path, case: str, object_format: str
) -> None:
    old, current = CASES[case]
    repo = make_repo(tmp_path, old, object_format)
    ledger = tmp_path / LEDGER_RELPATH
    if current is None:
        ledger.unlink()
    else:
        ledger.write_bytes(current)
    found = rewritten_since_base(repo, repo.resolve_base("HEAD"), ledger)
    expected = whole_file_answer(old, current)
    assert (found.start_line if found else None) == expected
    if found is not None:
        assert found.rule == "ledger-invalid" and "rewritten since HEAD" in found.message


@pytest.mark.usefixtures("git_identity")
def test_a_large_appended_ledger_is_proven_by_hash_without_reading_the_blob(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = b"".join(b'{"n":%d,"pad":"%s"}\n' % (n, b"x" * 200) for n in range(20000))
    repo = make_repo(tmp_path, old)
    ledger = tmp_path / LEDGER_RELPATH
    ledger.write_bytes(old + b'{"n":"new"}\n')

    def never(sha: str, kind: str) -> None:
        raise AssertionError("the committed ledger was read")

    monkeypatch.setattr(Repo, "open_object", never)
    assert rewritten_since_base(repo, repo.resolve_base("HEAD"), ledger) is None
    ledger.write_bytes(old[:-3] + b'y"}\n')  # the last committed line altered
    monkeypatch.undo()
    found = rewritten_since_base(repo, repo.resolve_base("HEAD"), ledger)
    assert found is not None and found.start_line == 20000
    # the first line gone: the answer comes while git still has megabytes to write
    ledger.write_bytes(old[old.index(b"\n") + 1 :])
    found = rewritten_since_base(repo, repo.resolve_base("HEAD"), ledger)
    assert found is not None and found.start_line == 1


@pytest.mark.usefixtures("git_identity")
def test_git_failing_to_stream_the_committed_ledger_is_an_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, b"a\n")
    with pytest.raises(GitError), repo.open_object("0" * 40, "blob") as stream:
        assert stream.read() == b""


@pytest.mark.usefixtures("git_identity")
def test_a_committed_directory_in_the_ledgers_place_is_compared_as_before(
    tmp_path: Path,
) -> None:
    """A hostile base: the ledger's path held a directory; its raw tree is what the
    whole-file comparison compared, and still is."""
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp_path, check=True)
    ledger = tmp_path / LEDGER_RELPATH
    (ledger / "inner").mkdir(parents=True)
    (ledger / "inner" / "f").write_bytes(b"x\n")
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "base"], cwd=tmp_path, check=True)
    tree = subprocess.run(
        ["git", "cat-file", "tree", f"HEAD:{LEDGER_RELPATH.as_posix()}"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    ).stdout
    (ledger / "inner" / "f").unlink()
    (ledger / "inner").rmdir()
    ledger.rmdir()
    ledger.write_bytes(b"a\n")
    repo = Repo(tmp_path)
    found = rewritten_since_base(repo, repo.resolve_base("HEAD"), ledger)
    expected = whole_file_answer(tree, b"a\n")
    assert (found.start_line if found else None) == expected
