"""A hover's blame walks each file's ``touches`` backwards by rowid and stops after the
newest few: its answers must be those of sorting every match by ``seq`` and cutting at the
limit, record for record and entry for entry, however the rows are spread over the cache
file and its shard — after a parallel cold build, after appends, after a merge realigned
the cache — and even when one record has the same content in several places (which of its
rows comes first decides the entry's path and name)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from intent_ls.common.hashing import hash_key
from intent_ls.ledger.index import TraceIndex, build, fastpath
from intent_ls.ledger.index.queries import BlameEntry, RecordRef
from intent_ls.ledger.store import ledger_path
from intent_ls.syntax.model import AstNode

PATHS = ("a.py", "b.py", "c.py")
NAMES = ("f", "g", "C.m")
HASHES = tuple("sha256:" + hashlib.sha256(f"body {i}".encode()).hexdigest() for i in range(4))
LIMITS = (1, 2, 3, 5, 20)

#: How blame answered before it walked by rowid: each file's matches sorted by ``seq``
#: (SQLite's sort keeps a record's rows in index order), cut at the limit, merged.
_REF = "r.seq, r.offset, r.ts, r.intent, r.ctype, r.model, r.mclass, r.kind"
_JOIN = "FROM {s}.touches t JOIN {s}.records r ON r.seq = t.seq "
_IDS = "(SELECT id FROM {s}.strings WHERE text = ?)"
_SORTED_DEFINITION = (
    f"SELECT {_REF} {_JOIN}WHERE t.path IN {_IDS} AND t.name IN {_IDS} ORDER BY r.seq DESC LIMIT ?"
)
_SORTED_CONTENT = (
    f"SELECT {_REF}, (SELECT text FROM {{s}}.strings WHERE id = t.path), "
    f"(SELECT text FROM {{s}}.strings WHERE id = t.name) {_JOIN}"
    "WHERE t.hkey = ? ORDER BY r.seq DESC LIMIT ?"
)


def _sorted_blame(
    index: TraceIndex, path: str, node: AstNode | None, line_hash: str, limit: int
) -> list[BlameEntry]:
    def newest(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        rows.sort(key=lambda row: row[0], reverse=True)
        return rows[:limit]

    found: dict[int, BlameEntry] = {}
    if node is not None:
        for row in newest(index._each(_SORTED_DEFINITION, (path, node.name, limit))):
            found.setdefault(row[0], BlameEntry(RecordRef(*row), path, node.name, "definition"))
    for digest in (node.content_hash if node else None, line_hash):
        if digest is None:
            continue
        for row in newest(index._each(_SORTED_CONTENT, (hash_key(digest), limit))):
            entry = BlameEntry(RecordRef(*row[:8]), row[8], row[9], "content")
            found.setdefault(row[0], entry)
    return [found[seq] for seq in sorted(found, reverse=True)][:limit]


def _record(rnd: random.Random, n: int) -> dict[str, Any]:
    """A record touching random paths, names and contents from small pools: the same
    content often twice in one record, in another file or as a definition."""
    files = []
    for path in rnd.sample(PATHS, rnd.randint(1, 2)):
        ranges = [
            {"content_hash": rnd.choice(HASHES), "start_line": 1, "end_line": 2}
            for _ in range(rnd.randint(0, 2))
        ]
        conv = {"contributor": {"type": "ai", "model_id": "m"}, "ranges": ranges}
        files.append({"path": path, "conversations": [conv]})
    nodes = [
        {
            "path": rnd.choice(PATHS),
            "name": rnd.choice(NAMES),
            "kind": "function",
            "content_hash": rnd.choice(HASHES),
            "start_line": 1,
            "end_line": 2,
        }
        for _ in range(rnd.randint(0, 3))
    ]
    meta = {
        "intent_id": f"INT-{n % 3}",
        "kind": "mutation",
        "ast_nodes": nodes,
        "digest": "sha256:" + hashlib.sha256(f"record {n}".encode()).hexdigest(),
    }
    return {
        "files": files,
        "timestamp": f"2026-01-01T00:00:{n % 60:02d}Z",
        "metadata": {"intent_ls": meta},
    }


def _lines(rnd: random.Random, first: int, count: int) -> list[bytes]:
    return [
        json.dumps(_record(rnd, n), sort_keys=True).encode() + b"\n"
        for n in range(first, first + count)
    ]


def _lookups() -> list[tuple[str, AstNode, str]]:
    return [
        (path, AstNode("function", name, 1, 2, node_hash), line_hash)
        for path in PATHS
        for name in NAMES
        for node_hash in HASHES[:2]
        for line_hash in HASHES[1:]
    ]


def _check_same_answers(index: TraceIndex) -> None:
    for path, node, line_hash in _lookups():
        for limit in LIMITS:
            walked = index.blame(path, definition=node, content_hash=line_hash, limit=limit)
            assert walked == _sorted_blame(index, path, node, line_hash, limit)


def _check_rowids_follow_seq(index: TraceIndex) -> None:
    """What the walk relies on: in each file, a later row never has an earlier ``seq``."""
    index.refresh()
    assert index._db is not None
    for schema in index.schemas:
        seqs = [
            row[0] for row in index._db.execute(f"SELECT seq FROM {schema}.touches ORDER BY rowid")
        ]
        assert seqs and seqs == sorted(seqs)


@pytest.fixture
def sharded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TraceIndex:
    """A cache built by two processes from 60 random records: the newer half in a shard."""
    monkeypatch.setattr(build, "PARALLEL_MIN", 1)
    monkeypatch.setattr(fastpath, "FAST_MIN", 0)
    ledger = ledger_path(tmp_path)
    ledger.parent.mkdir(parents=True)
    ledger.write_bytes(b"".join(_lines(random.Random(1), 0, 60)))
    index = TraceIndex.for_workspace(tmp_path)
    index.refresh()
    assert index.schemas == ["main", "s1"]
    yield index
    index.close()


def _files_of(index: TraceIndex, seqs: list[int]) -> set[str]:
    assert index._db is not None
    return {
        schema
        for schema in index.schemas
        for seq in seqs
        if index._db.execute(f"SELECT 1 FROM {schema}.records WHERE seq = ?", (seq,)).fetchone()
    }


def test_the_same_answers_as_sorting_after_a_parallel_build(sharded: TraceIndex) -> None:
    _check_rowids_follow_seq(sharded)
    _check_same_answers(sharded)


def test_the_same_answers_when_appends_are_newest_and_the_shard_next(
    sharded: TraceIndex,
) -> None:
    with sharded.ledger.open("ab") as f:
        f.write(b"".join(_lines(random.Random(2), 60, 4)))
    assert sharded.refresh() == 4
    _check_rowids_follow_seq(sharded)
    _check_same_answers(sharded)
    # A lookup whose newest entries come from the appends (in the cache file) and from
    # the shard both, so the merge of the two walks decides what is cut.
    spread = [
        (path, node, line_hash)
        for path, node, line_hash in _lookups()
        if _files_of(
            sharded,
            [e.record.seq for e in sharded.blame(path, definition=node, content_hash=line_hash)][
                :5
            ],
        )
        == {"main", "s1"}
    ]
    assert spread


def test_the_same_answers_after_a_merge_realigned_the_cache(
    sharded: TraceIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = sharded.ledger.read_bytes().splitlines(True)
    inode = sharded.cache.stat().st_ino
    merged = lines[:20] + _lines(random.Random(3), 100, 5) + lines[20:45] + lines[50:]
    sharded.ledger.write_bytes(b"".join(merged))
    monkeypatch.setattr(build, "PARALLEL_MIN", 1 << 40)  # realigned, not rebuilt
    assert sharded.refresh() > 0
    assert sharded.cache.stat().st_ino == inode and sharded.schemas == ["main", "s1"]
    assert sharded.record_count == len(merged)
    _check_rowids_follow_seq(sharded)
    _check_same_answers(sharded)
    with sharded.ledger.open("ab") as f:
        f.write(b"".join(_lines(random.Random(4), 200, 3)))
    assert sharded.refresh() == 3
    _check_rowids_follow_seq(sharded)
    _check_same_answers(sharded)


def test_one_record_with_the_same_content_twice_keeps_its_first_row(tmp_path: Path) -> None:
    """The newest record has the hovered content in a range of b.py and in two definitions
    of a.py, the one before in c.py. A limit counts rows: up to 3 the newest record's rows
    fill it, and with 1 or 2 the cut falls inside them, walked from its last; its entry is
    still its first row's (the range in b.py)."""
    ledger = ledger_path(tmp_path)
    ledger.parent.mkdir(parents=True)
    older, newer = _record(random.Random(5), 0), _record(random.Random(6), 1)
    range_of = {"content_hash": HASHES[0], "start_line": 1, "end_line": 2}
    older["files"] = [{"path": "c.py", "conversations": [{"ranges": [range_of]}]}]
    older["metadata"]["intent_ls"]["ast_nodes"] = []
    newer["files"] = [{"path": "b.py", "conversations": [{"ranges": [range_of]}]}]
    node = {"path": "a.py", "name": "f", "kind": "function", "content_hash": HASHES[0]}
    newer["metadata"]["intent_ls"]["ast_nodes"] = [node, dict(node, name="g")]
    ledger.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in (older, newer)))
    index = TraceIndex.for_workspace(tmp_path)
    try:
        for limit, paths in ((1, ["b.py"]), (2, ["b.py"]), (3, ["b.py"]), (4, ["b.py", "c.py"])):
            entries = index.blame("z.py", content_hash=HASHES[0], limit=limit)
            assert [(e.path, e.name) for e in entries] == [(p, None) for p in paths]
            assert entries == _sorted_blame(index, "z.py", None, HASHES[0], limit)
    finally:
        index.close()


def test_unknown_texts_and_a_zero_limit_answer_nothing(sharded: TraceIndex) -> None:
    unknown = AstNode("function", "unknown", 1, 2, "sha256:" + "0" * 64)
    assert sharded.blame("nowhere.py", definition=unknown, content_hash="sha256:" + "1" * 64) == []
    known = AstNode("function", "f", 1, 2, HASHES[0])
    assert sharded.blame("a.py", definition=known, content_hash=HASHES[1])
    assert sharded.blame("a.py", definition=known, content_hash=HASHES[1], limit=0) == []
