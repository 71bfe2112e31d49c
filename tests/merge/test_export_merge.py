"""``intent-ls export`` after real git merges and rebases through the ledger's merge
driver: records that land in the middle of the file are exported exactly once."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from git_clones import Clone


def digests(lines: list[bytes]) -> list[str]:
    return [json.loads(line)["metadata"]["intent_ls"]["digest"] for line in lines]


def exported(out: Path) -> list[str]:
    rows = duckdb.sql(
        f"SELECT digest FROM read_parquet('{out}/records/*/*.parquet', hive_partitioning = true)"
    ).fetchall()
    return [row[0] for row in rows]


def export(repo: Clone, out: Path) -> str:
    done = repo.cli("export", "--out", str(out), "--repo", "acme/app")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_records_rebased_into_the_middle_are_exported_exactly_once(
    origin: Clone, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    origin.git("checkout", "-q", "-b", "a", "main")
    a = [origin.save("src/a.py", f"a = {i}\n") for i in range(2)]
    origin.commit("a")
    origin.git("checkout", "-q", "-b", "b", "main")
    for i in range(3):
        origin.save("src/b.py", f"b = {i}\n")
        origin.commit(f"b {i}")
    export(origin, out)
    before = set(exported(out))
    rebased = origin.git("rebase", "a", check=False)
    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    assert origin.verify().returncode == 0
    lines = origin.ledger_lines()
    # a's records now sit before records already exported: not an append.
    assert max(lines.index(line) for line in a) < max(
        i for i, d in enumerate(digests(lines)) if d in before
    )
    said = export(origin, out)
    assert "the whole ledger verified" in said
    assert sorted(exported(out)) == sorted(digests(lines))
    assert "nothing new" in export(origin, out)


def test_a_merge_in_another_clone_then_a_pull_exports_every_record_once(
    origin: Clone, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    clone = Clone(tmp_path / "clone")
    origin.git("clone", "-q", str(origin.root), str(clone.root))
    assert clone.cli("init").returncode == 0
    clone.save("src/c.py", "c = 1\n")
    clone.commit("clone work")
    export(clone, out)
    origin.save("src/o.py", "o = 1\n")
    origin.save("src/o.py", "o = 2\n")
    origin.commit("origin work")
    pulled = clone.git("pull", "--no-rebase", "--no-edit", "origin", "main", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    lines = clone.ledger_lines()
    assert json.loads(lines[-1])["metadata"]["intent_ls"]["kind"] == "merge"
    said = export(clone, out)
    assert "exported 3 record(s)" in said  # origin's two saves and the merge record
    assert sorted(exported(out)) == sorted(digests(lines))
