"""Branches, clones, merges, rebases and cherry-picks of a recorded ledger, in real git."""

from __future__ import annotations

from pathlib import Path

from git_clones import Clone, make_origin

from intent_ls.ledger.verify import CONFLICT_MESSAGE


def _branch_saves(repo: Clone, branch: str, rel: str, texts: list[str]) -> list[bytes]:
    repo.git("checkout", "-q", "-b", branch, "main")
    lines = []
    for i, text in enumerate(texts):
        lines.append(repo.save(rel, text))
        repo.commit(f"{branch} {i}")
    return lines


def _two_branches(origin: Clone) -> tuple[list[bytes], list[bytes]]:
    a = _branch_saves(origin, "a", "src/a.py", ["a = 1\n", "a = 2\n"])
    b = _branch_saves(origin, "b", "src/b.py", ["b = 1\n", "b = 2\n", "b = 3\n"])
    return a, b


def _assert_kept_once(repo: Clone, *expected: bytes) -> None:
    lines = repo.ledger_lines()
    assert len(lines) == len(set(lines))
    for line in expected:
        assert lines.count(line) == 1


def test_merge_of_two_recorded_branches_is_clean_and_verifies(origin: Clone) -> None:
    start = origin.ledger_lines()
    a, b = _two_branches(origin)
    merged = origin.git("merge", "--no-edit", "a", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    _assert_kept_once(origin, *start, *a, *b)
    assert origin.git("status", "--porcelain").stdout == ""
    verified = origin.verify()
    assert verified.returncode == 0, verified.stderr
    checked = origin.cli("check", "--base", "main")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "2 changed governed file" in checked.stderr  # both sides' files
    (origin.root / "src" / "a.py").write_text("a = 'not recorded'\n", encoding="utf-8")
    checked = origin.cli("check", "--base", "main")
    assert checked.returncode == 1
    assert checked.stdout.startswith("src/a.py:1:") and "uncovered-change" in checked.stdout


def test_rebase_of_a_recorded_branch_is_clean_and_verifies(origin: Clone) -> None:
    start = origin.ledger_lines()
    a, b = _two_branches(origin)
    rebased = origin.git("rebase", "a", check=False)
    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    _assert_kept_once(origin, *start, *a, *b)
    assert origin.verify().returncode == 0, origin.verify().stderr
    for base in ("main", "a"):
        checked = origin.cli("check", "--base", base)
        assert checked.returncode == 0, checked.stdout + checked.stderr


def test_cherry_pick_and_later_merge_verify(origin: Clone) -> None:
    origin.git("checkout", "-q", "-b", "a", "main")
    a = [origin.save("src/a1.py", "a = 1\n")]
    origin.commit("a 0")
    a.append(origin.save("src/a2.py", "a = 2\n"))
    origin.commit("a 1")
    origin.git("checkout", "-q", "main")
    origin.save("src/main.py", "m = 1\n")
    origin.commit("main moves on")
    picked = origin.git("cherry-pick", "a", check=False)  # a's second save only
    assert picked.returncode == 0, picked.stdout + picked.stderr
    _assert_kept_once(origin, a[1])
    assert a[0] not in origin.ledger_lines()
    assert origin.verify().returncode == 0, origin.verify().stderr
    # The picked code is attributed by content hash, whatever commit carried it.
    checked = origin.cli("check", "--base", "HEAD~1")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "1 changed governed file" in checked.stderr
    merged = origin.git("merge", "--no-edit", "a", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    _assert_kept_once(origin, *a)
    assert origin.verify().returncode == 0, origin.verify().stderr


def test_squash_merge_is_covered_by_check(origin: Clone) -> None:
    a, _ = _two_branches(origin)
    origin.git("checkout", "-q", "main")
    squashed = origin.git("merge", "--squash", "a", check=False)
    assert squashed.returncode == 0, squashed.stdout + squashed.stderr
    origin.commit("squash a")
    _assert_kept_once(origin, *a)
    checked = origin.cli("check", "--base", "main~1")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_two_clones_pull_with_merge_and_with_rebase(origin: Clone, tmp_path: Path) -> None:
    clone = Clone(tmp_path / "clone")
    origin.git("clone", "-q", str(origin.root), str(clone.root))
    assert clone.cli("init").returncode == 0  # per clone: git does not copy the driver
    ours = [clone.save("src/c.py", f"c = {i}\n") for i in range(2)]
    clone.commit("clone work")
    theirs = [origin.save("src/o.py", f"o = {i}\n") for i in range(2)]
    origin.commit("origin work")

    merged = clone.git("pull", "--no-rebase", "--no-edit", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    _assert_kept_once(clone, *ours, *theirs)
    assert clone.verify().returncode == 0, clone.verify().stderr
    assert clone.cli("check", "--base", "origin/main").returncode == 0

    clone.git("reset", "-q", "--hard", "HEAD~1")  # undo the merge, pull again by rebase
    rebased = clone.git("pull", "--rebase", check=False)
    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    _assert_kept_once(clone, *ours, *theirs)
    assert clone.verify().returncode == 0, clone.verify().stderr
    checked = clone.cli("check", "--base", "origin/main")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_tamper_from_either_side_is_caught_after_merge(origin: Clone) -> None:
    a, b = _two_branches(origin)
    assert origin.git("merge", "--no-edit", "a", check=False).returncode == 0
    clean = origin.ledger_lines()
    for victim in (a[0], b[1]):
        at = clean.index(victim)
        tampered = list(clean)
        tampered[at] = victim.replace(b'"b = ', b'"B = ').replace(b'"sha256:', b'"sha256:f', 1)
        assert tampered[at] != victim
        (origin.root / ".orchestration" / "agent_trace.jsonl").write_bytes(
            b"".join(line + b"\n" for line in tampered)
        )
        verified = origin.verify()
        assert verified.returncode == 1
        assert f"agent_trace.jsonl:{at + 1}:" in verified.stderr
    for victim in (a[0], b[0]):  # a removed record that a later record names
        removed = [line for line in clean if line != victim]
        (origin.root / ".orchestration" / "agent_trace.jsonl").write_bytes(
            b"".join(line + b"\n" for line in removed)
        )
        verified = origin.verify()
        assert verified.returncode == 1 and "chain broken" in verified.stderr


def test_merge_without_init_gets_a_clear_message_and_repair_keeps_both_sides(
    tmp_path: Path,
) -> None:
    origin = make_origin(tmp_path / "plain", init=False)
    start = origin.ledger_lines()
    a, b = _two_branches(origin)
    merged = origin.git("merge", "--no-edit", "a", check=False)
    assert merged.returncode != 0 and "agent_trace.jsonl" in merged.stdout
    verified = origin.verify()
    assert verified.returncode == 1
    assert CONFLICT_MESSAGE in verified.stderr and "Traceback" not in verified.stderr
    checked = origin.cli("check", "--base", "main")
    assert checked.returncode == 1 and "intent-ls trace repair" in checked.stdout
    assert "tamper" not in checked.stdout

    assert origin.cli("init").returncode == 0
    repaired = origin.cli("trace", "repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "conflict marker" in repaired.stdout
    _assert_kept_once(origin, *start, *a, *b)
    assert origin.verify().returncode == 0
    origin.commit("merge a, ledger repaired")
    checked = origin.cli("check", "--base", "main")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_check_warns_once_when_the_clone_lacks_the_driver(origin: Clone, tmp_path: Path) -> None:
    clone = Clone(tmp_path / "fresh")
    origin.git("clone", "-q", str(origin.root), str(clone.root))
    checked = clone.cli("check", "--base", "HEAD")
    assert checked.stderr.count("run `intent-ls init` in this clone") == 1
    assert clone.cli("init").returncode == 0
    assert "intent-ls init" not in clone.cli("check", "--base", "HEAD").stderr
