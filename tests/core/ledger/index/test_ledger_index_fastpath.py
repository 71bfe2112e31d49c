"""The index's fast path (msgspec) must read exactly what json.loads + extract_rows reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from intent_ls.ledger.index import (
    TraceIndex,
    build,
    extract_rows,
    fast_rows,
    fastpath,
    json_rows,
    line_rows,
)
from intent_ls.ledger.records import RecordedVerdict, build_approval_record, build_mutation_record
from intent_ls.ledger.store import Ledger, canonical_bytes, ledger_path
from intent_ls.policy.approvals import Approval, Contributor
from tests.core.ledger.ledger_helpers import mutation

OLD = "class Cart:\n    def total(self):\n        return 1\n"
NEW = "class Cart:\n    def total(self):\n        return 2\n\n\ndef añadir():\n    pass\n"
CUT = "class Cart:\n    def total(self):\n        return 2\n"


def _records(root: Path) -> list[dict]:
    verdict = RecordedVerdict(
        "OUT_OF_SCOPE",
        "src/x.py is outside the scope of active intent INT-001; no intent owns it.",
        {"path": "src/x.py", "owners": ["INT-002"], "selectable": [], "state": None, "n": 1.5},
    )
    approval = Approval("OUT_OF_SCOPE", "src/x.py", 1, 3, "sha256:" + "ab" * 32, reason="ok")
    return [
        build_mutation_record(
            root, "cart.py", OLD, NEW, intent_id="INT-001", session_id="s",
            contributor=Contributor("ai", "anthropic/claude-x"), revision="f" * 40,
        ),
        build_mutation_record(  # unicode path, no intent, no model, no git
            root, "módulo/ñ 文件.py", "a = 1\n", "a = 2\nb = 3\n", intent_id=None,
            session_id=None, contributor=Contributor("human"), revision=None,
        ),
        build_mutation_record(  # a pure deletion: no ranges; verdicts and approvals
            root, "cart.py", NEW, CUT, intent_id="INT-002", session_id="t",
            contributor=Contributor("mixed"), verdicts=[verdict], approvals=[approval],
            revision=None,
        ),
        build_approval_record(root, approval, intent_id="INT-001", session_id="s", revision=None),
        build_approval_record(root, approval, intent_id=None, session_id=None, revision=None),
    ]  # fmt: skip


def _sealed_lines(root: Path) -> list[bytes]:
    ledger = Ledger(ledger_path(root), fsync=False)
    for record in _records(root):
        assert record is not None
        ledger.append(record)
    return [line for _, line in ledger.iter_lines()]


def test_fast_path_reads_what_json_reads(tmp_path: Path) -> None:
    lines = _sealed_lines(tmp_path)
    assert not json.loads(lines[2])["files"][0]["conversations"][0]["ranges"]
    assert (3, "cart.py", None, "file", None) in extract_rows(3, 300, json.loads(lines[2]))[1]
    for seq, line in enumerate(lines, 1):
        fast = fast_rows(seq, 100 * seq, line)
        assert fast is not None, line
        assert fast == extract_rows(seq, 100 * seq, json.loads(line))


@pytest.mark.parametrize(
    ("change", "fast"),
    [
        (lambda r: r, True),  # control: canonical
        (lambda r: {**r, "extra": 1}, True),  # a key the index does not read
        (lambda r: {**r, "files": [*r["files"], {**r["files"][0], "path": "two.py"}]}, True),
        (lambda r: {**r, "files": [{**r["files"][0], "path": 'quo"te.py'}]}, False),  # escape
    ],
)
def test_other_shapes_read_the_same(tmp_path: Path, change, fast: bool) -> None:
    record = json.loads(_sealed_lines(tmp_path)[0])
    line = canonical_bytes(change(record))
    expected = extract_rows(7, 0, json.loads(line))
    assert line_rows(7, 0, line) == expected
    # the same record, not canonical: spaces and key order
    loose = json.dumps(change(record), indent=1, ensure_ascii=False).replace("\n", "").encode()
    assert fast_rows(7, 0, loose) == (expected if fast else None)
    assert line_rows(7, 0, loose) == expected


_H = "sha256:" + "0123456789abcdef" * 4
HOSTILE = [
    b'{"timestamp":"a","timestamp":"b","metadata":{"intent_ls":{"kind":"x","kind":"y"}}}',
    b'{"x":"\xff","metadata":{"intent_ls":{"intent_id":"I"}}}',  # not UTF-8, skipped field
    b'{"x":"\xed\xa0\x80"}',  # an encoded surrogate (json.loads passes it)
    b'\xef\xbb\xbf{"timestamp":"t"}',  # a BOM
    b'{"n":NaN,"timestamp":"t"}',
    b'{"n":1e999,"timestamp":"t"}',
    b'{"metadata":null}',
    b'{"metadata":{"intent_ls":null}}',
    b'{"metadata":{}}',
    b'{"files":{}}',
    b'{"files":"ab"}',
    b'{"files":false}',
    b'{"files":[{"path":1}]}',
    b'{"files":[{"path":["p"],"conversations":[{"ranges":[]}]}]}',  # no file row for it
    b'{"files":[{"path":"p"},{"path":"q","conversations":[{"ranges":[{}]}]},{"path":"p"}]}',
    b'{"files":[{"path":null,"conversations":[]}]}',
    b'{"files":[{"path":"p","conversations":[{"contributor":{},"related":[{"url":null}]}]}]}',
    b'{"files":[{"path":"p","conversations":[{"related":[{"type":"specification"}]}]}]}',
    b'{"files":[{"path":"p","conversations":[{"contributor":null,"related":[{"type":'
    b'"specification","url":"urn:intent:INT-7"}],"ranges":[{"content_hash":""}]}]}]}',
    b'{"files":[{"path":"p","conversations":[{"ranges":[{"content_hash":"sha256:xyz"}]}]}]}',
    b'{"files":[{"path":"p","conversations":[{"ranges":[{"content_hash":5}]}]}]}',
    b'{"files":[{"path":"p","conversations":[{"ranges":[{"content_hash":"sha256:0x1f"}]}]}]}',
    b'{"files":[{"conversations":[{"contributor":{"model_id":"m"}},{"contributor":'
    b'{"type":"ai","model_id":"n"}}]}]}',
    b'{"metadata":{"intent_ls":{"ast_nodes":[{"content_hash":null,"name":"f"}],"digest":'
    b'"sha256:0123456789ABCDEF0123"}}}',
    b'{"metadata":{"intent_ls":{"ast_nodes":{},"digest":"' + _H.encode() + b'"}}}',
    b'{"metadata":{"intent_ls":{"ast_nodes":[1],"intent_id":3}}}',
    b'{"metadata":{"intent_ls":{"digest":"sha256:0123456789abcdef\\nx"}}}',
    b'{"timestamp":"t"} ',
    b'{"timestamp":"t"}x',
    b'{"timestamp":"t\x01"}',
    b"[1,2]",
    b"",
]


@pytest.mark.parametrize("line", HOSTILE)
def test_fast_path_agrees_with_json_on_hostile_lines(line: bytes) -> None:
    """Lines msgspec and json.loads might read differently (encoding, duplicate keys,
    types, numbers) give the rows json.loads gives, through the fast path or not."""
    assert line_rows(4, 8, line) == json_rows(4, 8, line)


def test_damaged_lines_are_invalid_not_lost(tmp_path: Path) -> None:
    line = _sealed_lines(tmp_path)[0]
    deep = b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"  # too deep for either parser
    for bad in (line[:-1], line.replace(b'"files"', b"\xff"), b"[1,2]", b"", deep):
        assert fast_rows(3, 9, bad) is None
        assert line_rows(3, 9, bad) == ((3, 9, None, None, None, None, None, "invalid", None), [])


def test_index_reads_mixed_ledger(tmp_path: Path) -> None:
    lines = _sealed_lines(tmp_path)
    path = ledger_path(tmp_path)
    # a hand-written, non-canonical foreign line between our own
    foreign = {"files": [{"path": "x.py", "conversations": [{"ranges": [
        {"start_line": 1, "end_line": 1, "content_hash": "sha256:" + "1" * 64}]}]}],
        "metadata": {"intent_ls": {"intent_id": "INT-9", "kind": "mutation"}}}  # fmt: skip
    path.write_bytes(b"\n".join([lines[0], json.dumps(foreign).encode(), *lines[1:]]) + b"\n")
    index = TraceIndex.for_workspace(tmp_path)
    refs = index.all_records()
    assert [r.intent_id for r in refs] == ["INT-001", "INT-9", None, "INT-002", "INT-001", None]
    assert [r.kind for r in index.records_for_hash("sha256:" + "1" * 64)] == ["mutation"]
    assert {r.seq for r in index.records_for_path("módulo/ñ 文件.py")} == {3}
    index.close()


#: Values SQLite cannot hold as text, in fields the index stores.
UNSTORABLE = [
    b'{"timestamp":"\\ud800"}',
    b'{"timestamp":99999999999999999999}',
    b'{"files":[{"path":"\\udc00x"}]}',
    b'{"files":[{"path":{"a":1},"conversations":[{"ranges":[{}]}]}]}',
    b'{"metadata":{"intent_ls":{"kind":[1],"intent_id":{"x":1}}}}',
    b'{"metadata":{"intent_ls":{"ast_nodes":[{"name":{},"path":[],"kind":7}]}}}',
]


def test_values_sqlite_cannot_store_do_not_stop_the_build(tmp_path: Path) -> None:
    """A hand-edited line with a list, an object, a huge number or a lone surrogate where
    the index keeps text is indexed without that value; the records after it are found."""
    lines = _sealed_lines(tmp_path)
    path = ledger_path(tmp_path)
    path.write_bytes(b"\n".join([*UNSTORABLE, lines[2]]) + b"\n")
    assert all(line_rows(1, 0, line) == json_rows(1, 0, line) for line in UNSTORABLE)
    index = TraceIndex.for_workspace(tmp_path)
    assert [r.intent_id for r in index.all_records()] == [None] * len(UNSTORABLE) + ["INT-002"]
    assert [r.seq for r in index.records_for_path("cart.py")] == [len(UNSTORABLE) + 1]
    index.close()


@pytest.mark.parametrize("worker", ["works", "fails"])
def test_split_build_matches_one_process(tmp_path: Path, monkeypatch, worker: str) -> None:
    ledger = Ledger(ledger_path(tmp_path), fsync=False)
    for i in range(30):
        ledger.append(mutation(tmp_path, i, intent=f"INT-{i % 3}", path=f"m{i % 4}.py"))
    one = TraceIndex.for_workspace(tmp_path)
    expected = (one.all_records(), one.summary(), one.records_for_path("m1.py"))
    one.close()
    monkeypatch.setattr(build, "PARALLEL_MIN", 1)
    if worker == "fails":
        monkeypatch.setattr(build.sys, "executable", "/bin/false")
    seen: list[tuple[int, int]] = []
    split = TraceIndex.for_workspace(tmp_path, progress=lambda *p: seen.append(p))
    assert split.rebuild() == 30
    assert (split.all_records(), split.summary(), split.records_for_path("m1.py")) == expected
    size = ledger.path.stat().st_size
    assert seen[-1] == (size, size)
    ledger.append(mutation(tmp_path, 99, intent="INT-LAST"))
    assert [r.seq for r in split.records_for_intent("INT-LAST")] == [31]
    split.close()
    assert not list(ledger.path.parent.glob(".local/*.part"))


def test_small_ledger_is_read_as_json_a_large_one_fast(tmp_path: Path, monkeypatch) -> None:
    """Importing msgspec and building the decoder costs an agent hook ~10 ms: a small
    ledger is read with json.loads instead, and both ways index exactly the same rows."""
    _sealed_lines(tmp_path)
    fastpath._decoder.cache_clear()
    slow = TraceIndex.for_workspace(tmp_path)
    expected = (slow.all_records(), slow.summary(), slow.records_for_path("cart.py"))
    slow.close()
    assert fastpath._decoder.cache_info().currsize == 0
    monkeypatch.setattr(fastpath, "FAST_MIN", 0)
    fast = TraceIndex.for_workspace(tmp_path)
    assert fast.rebuild() == 5
    assert (fast.all_records(), fast.summary(), fast.records_for_path("cart.py")) == expected
    fast.close()
    assert fastpath._decoder.cache_info().currsize == 1
