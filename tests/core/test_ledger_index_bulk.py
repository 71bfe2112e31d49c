"""The cold build's bulk reader: a block of lines through msgspec into flat rows, paths and
names as ids. Whatever way a ledger is read — json.loads line by line, msgspec a block at
a time, lines cut across blocks, two processes whose strings get different ids — every
query answers the same."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from ledger_helpers import mutation
from test_ledger_index_fastpath import HOSTILE, UNSTORABLE, _sealed_lines

from intent_ls.common.hashing import content_hash, hash_key
from intent_ls.ledger.index import TraceIndex, build, fastpath, json_rows
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.syntax.model import AstNode


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


@pytest.mark.parametrize("block", [1024 * 1024, 64, 1])
def test_a_block_at_a_time_reads_what_json_reads(tmp_path: Path, monkeypatch, block) -> None:
    """Hostile lines among ours, in blocks cut anywhere (a line longer than a block is
    gathered across reads): the fast reader's rows, and every answer, are json.loads's."""
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


def test_a_line_that_fails_halfway_leaves_no_rows_behind(tmp_path: Path, monkeypatch) -> None:
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


def test_halves_with_their_own_string_ids_answer_as_one(tmp_path: Path, monkeypatch) -> None:
    """The second process of a cold build numbers its paths and names from 1 like the
    first, and its strings are merged after the first's: the same path then has two ids,
    and every query still finds both halves' rows under it, once."""
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
    with sqlite3.connect(split.cache) as db:
        twice = db.execute(
            "SELECT count(*) FROM (SELECT text FROM strings GROUP BY text HAVING count(*) > 1)"
        ).fetchone()[0]
    db.close()
    assert twice > 0  # the case this test is about did happen
    ledger.append(mutation(tmp_path, 99, intent="INT-001", path="m1.py"))
    assert split.records_for_path("m1.py")[0].seq == 41
    split.close()


def test_the_second_process_never_imports_the_workspaces_code(tmp_path: Path, monkeypatch) -> None:
    """The second process of a cold build starts in the workspace: a repository with an
    ``intent_ls/`` directory of its own must not have it imported (and run) there."""
    planted = tmp_path / "intent_ls"
    planted.mkdir()
    (planted / "__init__.py").write_text("raise SystemExit('the workspace code ran')\n")
    monkeypatch.chdir(tmp_path)
    child = build.python_child("import intent_ls; print(intent_ls.__file__)")
    out, _ = child.communicate()
    assert child.returncode == 0
    assert Path(out.decode().strip()).resolve() == Path(build.__file__).resolve().parents[2] / (
        "__init__.py"
    )
