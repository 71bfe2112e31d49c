"""The cold build's bulk reader: a block of lines through msgspec into flat rows, paths and
names as ids. Whatever way a ledger is read — json.loads line by line, msgspec a block at
a time, lines cut across blocks, two processes whose strings get different ids — every
query answers the same."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_ledger_index_fastpath import HOSTILE, UNSTORABLE, _sealed_lines

from intent_ls.common import child as child_module
from intent_ls.common.child import python_child
from intent_ls.common.hashing import content_hash, hash_key
from intent_ls.ledger.index import TraceIndex, build, fastpath, json_rows, native
from intent_ls.ledger.index import cache as cache_module
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.syntax.model import AstNode
from tests.core.ledger.ledger_helpers import mutation


def _answers(index: TraceIndex, paths: list[str], hashes: list[str]) -> tuple[Any, ...]:
    """Every query's answer: by path, by hash, by definition, the aggregates."""
    node = AstNode("method", "Cart.total", 2, 3, hashes[0])
    return (
        index.all_records(),
        index.summary(),
        index.mutated_paths(),
        index.has_content_keys(),
        index.known_keys([hash_key(h) for h in hashes]),
        [index.records_for_path(p) for p in paths],
        [index.records_for_hash(h) for h in hashes],
        [index.blame(p, definition=node, content_hash=h) for p in paths for h in hashes],
        [index.definition_stats(p, [node]) for p in paths],
        [index.records_for_intent(i) for i in ("INT-001", "INT-002", "INT-7", "I")],
    )


def _touches(cache: Path) -> list[tuple[Any, ...]]:
    """The ``touches`` rows with their texts, in file order."""
    with sqlite3.connect(cache) as db:
        rows = db.execute(
            "SELECT seq, (SELECT text FROM strings WHERE id = t.path), "
            "(SELECT text FROM strings WHERE id = t.name), nkind, hkey FROM touches t "
            "ORDER BY rowid"
        ).fetchall()
    db.close()
    return rows


def _ledger(root: Path) -> tuple[list[str], list[str]]:
    """A ledger of our records, hostile and unstorable lines between them, and the paths
    and hashes to ask about."""
    sealed = _sealed_lines(root)
    lines = [sealed[0], *HOSTILE, sealed[1], *UNSTORABLE, *sealed[2:], sealed[0]]
    ledger_path(root).write_bytes(b"\n".join(lines) + b"\n")
    hashes = sorted(
        {key for line in lines for *_, key in json_rows(0, 0, line)[1] if key is not None}
    )
    assert hashes
    paths = ["cart.py", "módulo/ñ 文件.py", "p", "q", "x.py"]
    digests = [content_hash(["        return 2"]), "sha256:" + "0123456789abcdef" * 4]
    return paths, digests


@pytest.fixture(params=["C", "Python"])
def writer(request, monkeypatch) -> Iterator[str]:
    """The cold build's writer: the C one (skipped where it was not compiled, unless
    .ci/run requires it; the test fails if it never wrote) and the Python one."""
    if request.param == "C" and not native.available():
        assert not os.environ.get("INTENT_LS_REQUIRE_NATIVE"), "the C writer was not compiled"
        pytest.skip("the C writer was not compiled here")
    monkeypatch.setenv("INTENT_LS_PURE_PYTHON", "" if request.param == "C" else "1")
    used = []

    class Counted(native.NativeRows):
        def close(self) -> None:
            used.append(self)
            super().close()

    monkeypatch.setattr(native, "NativeRows", Counted)
    yield request.param
    assert bool(used) == (request.param == "C")


@pytest.mark.parametrize("block", [1024 * 1024, 64, 1])
def test_a_block_at_a_time_reads_what_json_reads(
    tmp_path: Path, monkeypatch, block, writer
) -> None:
    """Hostile lines among ours, in blocks cut anywhere (a line longer than a block is
    gathered across reads), through either writer: the fast reader's rows, and every
    answer, are json.loads's."""
    paths, hashes = _ledger(tmp_path)
    slow = TraceIndex(ledger_path(tmp_path), tmp_path / "slow.sqlite")
    expected = _answers(slow, paths, hashes)
    slow.close()
    monkeypatch.setattr(fastpath, "FAST_MIN", 0)
    monkeypatch.setattr(build, "_BLOCK", block)
    fast = TraceIndex(ledger_path(tmp_path), tmp_path / "fast.sqlite")
    assert _answers(fast, paths, hashes) == expected
    fast.close()
    assert _touches(tmp_path / "fast.sqlite") == _touches(tmp_path / "slow.sqlite")


def test_a_line_that_fails_halfway_leaves_no_rows_behind(
    tmp_path: Path, monkeypatch, writer
) -> None:
    """msgspec decodes the line, then a hash after the first turns out not to be hex: the
    rows already written for it are taken back and json.loads reads the line (which
    finds it damaged)."""
    good = "sha256:" + "ab" * 32
    line = (
        b'{"files":[{"path":"p","conversations":[{"ranges":[{"content_hash":"%s"},'
        b'{"content_hash":"sha256:zz"}]}]}]}' % good.encode()
    )
    sealed = _sealed_lines(tmp_path)
    ledger_path(tmp_path).write_bytes(b"\n".join([sealed[0], line, sealed[1]]) + b"\n")
    monkeypatch.setattr(fastpath, "FAST_MIN", 0)
    index = TraceIndex.for_workspace(tmp_path)
    assert [r.kind for r in index.all_records()] == ["mutation", "invalid", "mutation"]
    assert index.records_for_hash(good) == []
    assert index.records_for_path("p") == []
    index.close()


def test_halves_in_two_files_answer_as_one(tmp_path: Path, monkeypatch, writer) -> None:
    """A parallel cold build leaves the second half in a shard with its own indexes and
    its own string ids (the same path has an id in each file): every query answers as
    one file would, records appended later go to the cache file and are found too, and
    a rebuild removes the shard it replaces."""
    ledger = Ledger(ledger_path(tmp_path), fsync=False)
    for i in range(40):
        ledger.append(mutation(tmp_path, i, intent=f"INT-00{i % 3}", path=f"m{i % 4}.py"))
    paths = [f"m{i}.py" for i in range(5)]
    hashes = [content_hash([f"    return {i}"]) for i in range(3)]
    one = TraceIndex.for_workspace(tmp_path)
    expected = _answers(one, paths, hashes)
    one.close()
    monkeypatch.setattr(build, "PARALLEL_MIN", 1)
    monkeypatch.setattr(fastpath, "FAST_MIN", 0)
    split = TraceIndex.for_workspace(tmp_path)
    assert split.rebuild() == 40
    assert _answers(split, paths, hashes) == expected
    [shard] = split.cache.parent.glob("*.shard")
    texts, counts = [], []
    for file in (split.cache, shard):
        with sqlite3.connect(file) as db:
            texts.append(dict(db.execute("SELECT text, id FROM strings").fetchall()))
            counts.append(db.execute("SELECT count(*) FROM records").fetchone()[0])
        db.close()
    assert min(counts) > 0 and sum(counts) == 40
    assert set(texts[0]) & set(texts[1])  # the same paths, numbered in each file
    ledger.append(mutation(tmp_path, 99, intent="INT-001", path="m1.py"))
    assert split.records_for_path("m1.py")[0].seq == 41
    assert split.record_count == 41
    assert split.rebuild() == 41
    assert not shard.exists()
    assert len(list(split.cache.parent.glob("*.shard"))) == 1
    split.close()


def test_the_second_process_never_imports_the_workspaces_code(tmp_path: Path, monkeypatch) -> None:
    """The second process of a cold build (and of a parallel verify, and the server's
    background build) starts in the workspace: a repository with an ``intent_ls/``
    directory of its own must not have it imported (and run) there."""
    planted = tmp_path / "intent_ls"
    planted.mkdir()
    (planted / "__init__.py").write_text("raise SystemExit('the workspace code ran')\n")
    monkeypatch.chdir(tmp_path)
    child = python_child("import intent_ls; print(intent_ls.__file__)")
    out, _ = child.communicate()
    assert child.returncode == 0
    ours = Path(child_module.__file__).resolve().parents[1] / "__init__.py"
    assert Path(out.decode().strip()).resolve() == ours


def _sharded(root: Path, monkeypatch, count: int = 30) -> Ledger:
    ledger = Ledger(ledger_path(root), fsync=False)
    for i in range(count):
        ledger.append(mutation(root, i, intent=f"INT-00{i % 3}", path=f"m{i % 4}.py"))
    monkeypatch.setattr(build, "PARALLEL_MIN", 1)
    return ledger


def test_a_reader_on_old_shards_follows_a_rebuild(tmp_path: Path, monkeypatch) -> None:
    """One server rebuilds the cache in place (its old shard deleted) while another has
    the old one attached: the other's next query is answered from the new files."""
    ledger = _sharded(tmp_path, monkeypatch)
    reader = TraceIndex.for_workspace(tmp_path)
    assert reader.record_count == 30
    [old] = reader.cache.parent.glob("*.shard")
    ledger.path.write_bytes(b"".join(ledger.path.read_bytes().splitlines(True)[10:]))
    for i in range(5):
        ledger.append(mutation(tmp_path, 100 + i, intent="INT-NEW"))
    builder = TraceIndex.for_workspace(tmp_path)
    assert builder.rebuild() == 25
    assert not old.exists()
    assert reader.record_count == 25
    assert reader.all_records() == builder.all_records()
    assert len(reader.records_for_intent("INT-NEW")) == 5
    assert builder.rebuild() == 25  # the ledger as it was: only the cache file changed
    assert reader.record_count == 25
    assert reader._shards == builder._shards
    builder.close()
    reader.close()


def test_a_sharded_cache_realigns_after_a_merge(tmp_path: Path, monkeypatch) -> None:
    ledger = _sharded(tmp_path, monkeypatch, 40)
    index = TraceIndex.for_workspace(tmp_path)
    assert index.record_count == 40
    lines = ledger.path.read_bytes().splitlines(True)
    other = Ledger(tmp_path / "other.jsonl", fsync=False)
    for i in range(3):
        other.append(mutation(tmp_path, 200 + i, intent="INT-B", path="b.py"))
    merged = lines[:25] + other.path.read_bytes().splitlines(True) + lines[25:]
    ledger.path.write_bytes(b"".join(merged))
    monkeypatch.setattr(build, "PARALLEL_MIN", 1 << 40)  # realigned, not rebuilt
    cold = TraceIndex(ledger.path, tmp_path / "cold.sqlite")
    key = lambda r: r.offset  # noqa: E731
    assert [(r.offset, r.intent_id) for r in sorted(index.all_records(), key=key)] == [
        (r.offset, r.intent_id) for r in cold.all_records()
    ]
    assert len(index.records_for_path("b.py")) == 3
    assert index.summary() == cold.summary()
    index.close()
    cold.close()


def _digests(ledger: Path) -> list[str]:
    """The ranges' content hashes on ``ledger``: what a blame asks about."""
    found = {
        rng["content_hash"]
        for line in ledger.read_bytes().splitlines()
        for file in json.loads(line)["files"]
        for conv in file["conversations"]
        for rng in conv.get("ranges", [])
    }
    return sorted(found)


@pytest.mark.parametrize("since", ["appended", "merged"])
def test_a_cache_restored_into_a_fresh_clone_catches_up(
    tmp_path: Path, monkeypatch, since: str
) -> None:
    """A CI cache: ``.orchestration/.local/`` from a run on an earlier commit, put into a
    clone elsewhere whose ledger has grown since (or had a branch merged into it). The
    clone's index catches up or realigns, never builds from scratch, and answers as a
    cold build of the clone's ledger does."""
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    _sharded(earlier, monkeypatch, 40)
    built = TraceIndex.for_workspace(earlier)
    assert built.record_count == 40
    built.close()
    clone = tmp_path / "clone"
    shutil.copytree(earlier / ".orchestration", clone / ".orchestration")
    grown = Ledger(ledger_path(clone), fsync=False)
    lines = grown.path.read_bytes().splitlines(True)
    for i in range(3):
        grown.append(mutation(clone, 200 + i, intent="INT-B", path="b.py"))
    if since == "merged":
        new = grown.path.read_bytes().splitlines(True)[len(lines) :]
        grown.path.write_bytes(b"".join(lines[:25] + new + lines[25:]))

    def no_cold_build(*args: object) -> None:
        raise AssertionError("the restored cache was built again")

    monkeypatch.setattr(cache_module, "cold_build", no_cold_build)
    restored = TraceIndex.for_workspace(clone)
    assert restored.record_count == 43
    monkeypatch.undo()
    cold = TraceIndex(grown.path, tmp_path / "cold.sqlite")
    paths, hashes = ["b.py", "m1.py", "m3.py"], _digests(grown.path)
    by_line = lambda index: sorted(index.all_records(), key=lambda r: r.offset)  # noqa: E731
    assert [(r.offset, r.intent_id) for r in by_line(restored)] == [
        (r.offset, r.intent_id) for r in by_line(cold)
    ]
    if since == "appended":  # the same numbering too: every answer is the same
        assert _answers(restored, paths, hashes) == _answers(cold, paths, hashes)
    else:  # lines after the merge point are numbered after the restored ones
        assert restored.summary() == cold.summary()
        assert [len(restored.records_for_path(p)) for p in paths] == [
            len(cold.records_for_path(p)) for p in paths
        ]
    restored.close()
    cold.close()


def test_a_missing_or_forged_shard_means_a_rebuild(tmp_path: Path, monkeypatch) -> None:
    _sharded(tmp_path, monkeypatch)
    index = TraceIndex.for_workspace(tmp_path)
    expected = index.all_records()
    index.close()
    [shard] = index.cache.parent.glob("*.shard")
    shard.unlink()
    again = TraceIndex.for_workspace(tmp_path)
    assert again.all_records() == expected
    again.close()
    outside = tmp_path / "outside.sqlite"
    with sqlite3.connect(again.cache) as db:
        db.execute("UPDATE meta SET value = '../../outside.sqlite' WHERE key = 'shards'")
    db.close()
    forged = TraceIndex.for_workspace(tmp_path)
    assert forged.all_records() == expected
    forged.close()
    assert not outside.exists()


def test_a_link_at_a_shard_name_is_refused(tmp_path: Path, monkeypatch) -> None:
    from intent_ls.common.safe_io import UnsafePathError

    _sharded(tmp_path, monkeypatch)
    index = TraceIndex.for_workspace(tmp_path)
    assert index.record_count == 30
    index.close()
    [shard] = index.cache.parent.glob("*.shard")
    target = tmp_path / "elsewhere.sqlite"
    shard.rename(target)
    shard.symlink_to(target)
    with pytest.raises(UnsafePathError):
        TraceIndex.for_workspace(tmp_path).refresh()
