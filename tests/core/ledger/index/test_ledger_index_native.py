"""The cold build's C writer (``_bulk.c``) against the Python writer: on the same ledger
lines they must leave the same cache, row for row (records by ``seq``, ``touches`` in
rowid order with their texts, meta, the set of strings), and the C writer must fail with
a Python exception, never take the process down or leave half a line behind."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_ledger_index_fastpath import HOSTILE, UNSTORABLE, _sealed_lines

from intent_ls.ledger.index import build, fastpath, line_rows, native
from intent_ls.ledger.index.rows import FILE_ROW, URN, json_block, json_rows
from intent_ls.ledger.index.schema import create
from intent_ls.ledger.index.strings import Strings
from intent_ls.ledger.store import ledger_path

pytestmark = pytest.mark.skipif(not native.compiled(), reason="the C writer was not compiled")

Contents = dict[str, Any]
_H = "0123456789abcdef"
_UP = "sha256:" + "ABCDEF0123456789" * 4


def _line(record: Any) -> bytes:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()


def _rec(
    files: Any = (), nodes: Any = None, *, digest: Any = None, intent: Any = None, **meta: Any
) -> dict[str, Any]:
    """A record of the fields the index reads (any of them may be of the wrong type)."""
    body: dict[str, Any] = {"intent_id": intent, "digest": digest, **meta}
    if nodes is not None:
        body["ast_nodes"] = nodes
    return {"files": list(files), "metadata": {"intent_ls": body}, "timestamp": "2026-01-01"}


def _file(path: Any = "p.py", *convs: Any) -> dict[str, Any]:
    return {"path": path, "conversations": list(convs)}


def _conv(ctype: Any = "ai", model: Any = None, related: Any = (), hashes: Any = ()) -> Any:
    return {
        "contributor": None if ctype is None else {"type": ctype, "model_id": model},
        "related": [{"type": "specification", "url": URN + r} for r in related],
        "ranges": [{"content_hash": h} for h in hashes],
    }


def _node(path: Any = "p.py", name: Any = "f", kind: Any = "function", digest: Any = None) -> Any:
    return {"path": path, "name": name, "kind": kind, "content_hash": digest}


#: Lines the C writer must read as Python does (itself, or by leaving them to Python).
ADVERSARIAL = [
    # backslash escapes, in texts the index keeps and in texts it skips
    b'{"files":[{"path":"a\\u00e9\\n.py","conversations":[{"ranges":[{}]}]}],"x":"\\""}',
    b'{"timestamp":"t\\/","metadata":{"intent_ls":{"ast_nodes":[{"name":"\\u0000","path":"p"}]}}}',
    # non-ASCII, valid UTF-8: paths, names, kinds, intents
    _line(_rec([_file("módulo/ñ 文件.py", _conv("ai", "modèle", ["INT-é"], ["sha256:" + _H]))])),
    _line(_rec(nodes=[_node("ü.py", "größe", "método", "sha256:" + _H * 2)], kind="mutación")),
    # not UTF-8: a lone continuation byte, a truncated sequence, an overlong slash, a
    # surrogate, in a text the index keeps
    b'{"files":[{"path":"\x80.py"}]}',
    b'{"files":[{"path":"a\xc3"}],"timestamp":"t"}',
    b'{"timestamp":"\xc0\xaf"}',
    b'{"metadata":{"intent_ls":{"intent_id":"\xed\xa0\x80"}}}',
    # hashes: upper-case hex (a key), mixed case, short, empty, not hex, other prefixes
    _line(_rec([_file("u.py", _conv(hashes=[_UP, "sha256:" + "aBcD" * 16]))], digest=_UP)),
    _line(_rec([_file("s.py", _conv(hashes=["sha256:ab", "", None, "sha256:" + _H[:15]]))])),
    _line(_rec([_file("s.py", _conv(hashes=["x"]))])),
    _line(_rec([_file("s.py", _conv(hashes=["sha256:" + _H[:15] + "g" + _H]))])),
    _line(_rec([_file("s.py", _conv(hashes=["sha256:0x" + _H[:14], "sha256:+" + _H[:15]]))])),
    _line(_rec([_file("s.py", _conv(hashes=["sha256: " + _H[:15], "sha256:1_" + _H[:14]]))])),
    _line(_rec([_file("m.py", _conv(hashes=["md5:12" + _H + _H]))], digest="md5:12" + _H * 2)),
    _line(_rec(nodes=[_node(digest="sha1:" + "f" * 40)], digest="sha256:" + "f" * 64)),
    _line(
        _rec(nodes=[_node(digest="sha256:" + "8" + "0" * 15)], digest="sha256:" + "7" + "f" * 15)
    ),
    _line(_rec(digest="sha256:" + "ABCDEF" + _H)),  # the line key: lower-case only
    _line(_rec(digest="sha256:" + _H[:15])),
    _line(_rec(digest="sha256:" + _H[:15] + "é")),
    _line(_rec(digest="")),
    # wrong types: a number for a text, an object for files, null lists, a text contributor
    _line({**_rec(), "timestamp": 5}),
    _line({"files": {"path": "p"}}),
    _line(_rec([{"path": "n.py", "conversations": None}], nodes=None)),
    _line(_rec([_file("n.py", {"contributor": None, "related": None, "ranges": None})])),
    _line(_rec([_file("n.py", {"contributor": "ai"})])),
    _line(_rec(nodes=[_node(kind=7)])),
    _line(_rec(nodes=[_node(name=["f"])])),
    _line(_rec([_file("n.py", _conv(ctype=3))])),
    _line(_rec(intent=12)),
    # nesting: too deep for either parser, and deep but fine
    b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b',"timestamp":"deep"}',
    b'{"x":' + b"[" * 200 + b"]" * 200 + b',"timestamp":"nested"}',
    # not a record: invalid JSON, empty, an array, a text, null, a number
    b'{"files":[}',
    b"",
    b"[1,2]",
    b'"files"',
    b"null",
    b"7",
    # duplicate keys: the last wins (json.loads) or the line is left to json.loads
    b'{"files":[{"path":"d1.py"}],"files":[{"path":"d2.py"}],"timestamp":"a","timestamp":"b"}',
    b'{"metadata":{"intent_ls":{"intent_id":"A"}},"metadata":{"intent_ls":{"digest":"x"}}}',
    # related URNs: the last match of a conversation wins; a set intent stays
    _line(_rec([_file("r.py", _conv(related=["INT-1", "INT-2"]), _conv(related=["INT-3"]))])),
    _line(_rec([_file("r.py", _conv(related=["INT-1"]))], intent="INT-0")),
    _line(_rec([_file("r.py", _conv(related=["INT-1"]))], intent="")),
    _line(_rec([_file("r.py", _conv(related=[""]))])),
    b'{"files":[{"path":"r.py","conversations":[{"related":[{"type":"specification","url":'
    b'"urn:intent:A"},{"type":"other","url":"urn:intent:B"},{"url":"urn:intent:C"},'
    b'{"type":"specification","url":"http://x"}]}]}]}',
    b'{"files":[{"conversations":[{"related":[{"type":"specification","url":"urn:intent:X"}]}]'
    b'},{"path":"r.py","conversations":[{"related":[{"type":"specification","url":"urn:int'
    b'ent:Y"}]}]}]}',
    # contributors: "" then a type; a model later; null between (json.loads: null is {})
    _line(_rec([_file("c.py", _conv("", ""), _conv("ai", "m1"), _conv("human", "m2"))])),
    _line(_rec([_file("c.py", _conv("", "")), _file("d.py", _conv(None), _conv("ai", "m"))])),
    _line(_rec([_file("c.py", _conv("", ""), _conv(None))])),
    _line(_rec([_file("c.py", _conv("x", None), _conv(None), _conv("y", "m"))])),
    b'{"files":[{"path":"c.py","conversations":[{"contributor":{}},{"contributor":{"type":'
    b'"ai"}}]}]}',
    # files without ranges (file rows), with path null, none at all
    _line(_rec([_file("f1.py"), _file("f2.py", _conv()), _file(None, _conv(hashes=["x" * 30]))])),
    _line(_rec([_file(None), _file("f3.py", _conv(hashes=[None])), _file("f1.py")])),
    _line(_rec([{}, {"path": "f4.py"}, {"conversations": []}])),
    b'{"files":[],"metadata":{"intent_ls":{"ast_nodes":[]}}}',
    b'{"files":null,"metadata":{"intent_ls":{"ast_nodes":null}}}',
    # numbers json.loads takes and msgspec does not
    b'{"n":NaN,"files":[{"path":"nan.py"}]}',
    b'{"n":-Infinity,"timestamp":"inf"}',
    b'{"n":1e999,"timestamp":"big"}',
    b'{"n":123456789012345678901234567890,"timestamp":"bigint"}',
    # whitespace: around the object, a carriage return (a CRLF ledger), a BOM
    b' \t{"timestamp":"spaced"} ',
    b'{"timestamp":"crlf","files":[{"path":"crlf.py"}]}\r',
    b'\xef\xbb\xbf{"timestamp":"bom"}',
    b'{"timestamp":"t\x01"}',
    # keys the decoder does not know, with every kind of value
    b'{"a":{"b":[1,2.5,true,false,null,"s"]},"timestamp":"extra","files":[{"path":"e.py","z":{}}]}',
]


@pytest.mark.parametrize("line", ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_the_fast_path_reads_each_line_as_json_does(line: bytes) -> None:
    """The Python writer the C one is held to is itself held to json.loads (a null
    contributor after an empty type: json.loads reads it as {}, the type becomes None)."""
    assert line_rows(4, 8, line) == json_rows(4, 8, line)


def _normal(i: int) -> bytes:
    """An ordinary record of our writer's shape, different each time."""
    digest = f"sha256:{i:016x}" + _H * 3
    return _line(
        _rec(
            [
                _file(
                    f"src/m{i % 7}.py", _conv("ai", "anthropic/claude", [f"INT-{i % 5}"], [digest])
                )
            ],
            [_node(f"src/m{i % 7}.py", f"f{i % 11}", "function", digest)],
            digest=f"sha256:{(i * 2654435761) % (1 << 64):016x}" + _H * 3,
            kind="mutation",
            mutation_class="AST_REFACTOR",
        )
    )


def _contents(files: list[Path]) -> list[Contents]:
    """What each file of a cache holds: texts for ids, the shard's random name left out."""
    out = []
    for file in files:
        with contextlib.closing(sqlite3.connect(file)) as db:
            strings = [text for (text,) in db.execute("SELECT text FROM strings")]
            assert len(strings) == len(set(strings)), "a text with two ids"
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            meta.pop("shards", None)
            out.append(
                {
                    "records": db.execute("SELECT * FROM records ORDER BY seq").fetchall(),
                    "touches": db.execute(
                        "SELECT seq, (SELECT text FROM strings WHERE id = t.path), "
                        "(SELECT text FROM strings WHERE id = t.name), nkind, hkey "
                        "FROM touches t ORDER BY rowid"
                    ).fetchall(),
                    "meta": meta,
                    "strings": set(strings),
                    "ids": db.execute(
                        "SELECT count(*) FROM touches WHERE (path IS NOT NULL AND path NOT IN "
                        "(SELECT id FROM strings)) OR (name IS NOT NULL AND name NOT IN "
                        "(SELECT id FROM strings))"
                    ).fetchone()[0],
                }
            )
    return out


@pytest.fixture
def used(monkeypatch) -> list[int]:
    """Counts the blocks the C writer reads in this process."""
    blocks: list[int] = []

    class Counted(native.NativeRows):
        def block(self, block: memoryview, base: int, seq: int) -> int:
            blocks.append(len(block))
            return super().block(block, base, seq)

    monkeypatch.setattr(native, "NativeRows", Counted)
    return blocks


def _cold(ledger: Path, cache: Path, monkeypatch, *, c: bool) -> list[Contents]:
    """A cold build by one writer: the contents of its file and of its shard, if any."""
    monkeypatch.setenv("INTENT_LS_PURE_PYTHON", "" if c else "1")
    built, _ = build.cold_build(ledger, cache, None)
    with contextlib.closing(sqlite3.connect(built)) as db:
        shards = [name for (name,) in db.execute("SELECT value FROM meta WHERE key='shards'")]
    files = [built, *(cache.with_name(name) for name in shards)]
    try:
        return _contents(files)
    finally:
        for file in files:
            file.unlink()


def _both(root: Path, lines: list[bytes], monkeypatch, used: list[int], tail: bytes = b"\n"):
    ledger = ledger_path(root)
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_bytes(b"\n".join(lines) + tail)
    cache = ledger.parent / ".local" / "trace-index.sqlite"
    cache.parent.mkdir(exist_ok=True)
    python = _cold(ledger, cache, monkeypatch, c=False)
    assert not used
    c = _cold(ledger, cache, monkeypatch, c=True)
    return c, python


def _mixed(root: Path, normal: int = 60) -> list[bytes]:
    """Our own records, normal ones, and every adversarial line between them."""
    lines = [*_sealed_lines(root), *HOSTILE, *UNSTORABLE]
    for i, bad in enumerate(ADVERSARIAL):
        lines += [_normal(i), bad]
    return lines + [_normal(1000 + i) for i in range(normal)]


@pytest.mark.parametrize("block", [1024 * 1024, 4096, 1])
def test_the_c_writer_leaves_the_python_writers_cache(
    tmp_path: Path, monkeypatch, used: list[int], block: int
) -> None:
    """Every adversarial line among normal ones, in blocks of any size (a line longer
    than a block is gathered across reads), and a torn last line that neither indexes."""
    monkeypatch.setattr(fastpath, "FAST_MIN", 0)
    monkeypatch.setattr(build, "_BLOCK", block)
    lines = _mixed(tmp_path)
    c, python = _both(tmp_path, lines, monkeypatch, used, tail=b'\n{"timestamp":"torn"')
    assert used
    assert c == python
    [one] = c
    assert len(one["records"]) == len(lines)
    assert one["ids"] == 0
    assert "torn" not in {r[2] for r in one["records"]}


def test_a_line_longer_than_the_buffer(tmp_path: Path, monkeypatch, used: list[int]) -> None:
    """A 1.5 MiB line, then one ending on the buffer's last byte: the buffer grows and
    the lines after are read as before."""
    monkeypatch.setattr(fastpath, "FAST_MIN", 0)
    big = _rec([_file("big.py", _conv(hashes=["sha256:" + _H]))], digest="sha256:" + _H * 4)
    huge = _line({**big, "pad": "x" * (3 << 19)})
    head = [_normal(i) for i in range(5)]
    fill = build._BLOCK - sum(len(line) + 1 for line in head) - len(b'{"pad":""}') - 1
    edge = b'{"pad":"' + b"y" * fill + b'"}'
    c, python = _both(
        tmp_path, [*head, edge, huge, *ADVERSARIAL[:8], _normal(9)], monkeypatch, used
    )
    assert used[0] == build._BLOCK and used[1] > build._BLOCK
    assert c == python
    assert any(row[1] == "big.py" for row in c[0]["touches"])


def test_the_parallel_halves(tmp_path: Path, monkeypatch, used: list[int]) -> None:
    """A parallel cold build: this process's half through the C writer, the other
    process's shard through it too when its half is large enough for the fast path (the
    other process is a fresh interpreter: only the environment reaches it)."""
    monkeypatch.setattr(build, "PARALLEL_MIN", 1)
    lines = _mixed(tmp_path, normal=0)
    fill = [_normal(i) for i in range(fastpath.FAST_MIN * 5 // 2 // len(_normal(0)))]
    c, python = _both(tmp_path, [*lines, *fill, *lines], monkeypatch, used)
    assert used
    size = ledger_path(tmp_path).stat().st_size
    split = build._split_point(ledger_path(tmp_path), size)
    assert split is not None and size - split >= fastpath.FAST_MIN
    assert len(c) == len(python) == 2  # this process's file and the shard
    assert min(len(half["records"]) for half in c) > len(lines)
    assert _as_one(c) == _as_one(python)  # the two writers split at different points


def _as_one(halves: list[Contents]) -> Contents:
    """A parallel build's file and shard as one: rows in order, the file's meta."""
    main, shard = halves
    return {
        "records": main["records"] + shard["records"],
        "touches": main["touches"] + shard["touches"],
        "meta": main["meta"],
        "strings": main["strings"] | shard["strings"],
        "ids": main["ids"] + shard["ids"],
    }


def test_the_other_processs_half_in_process(tmp_path: Path, monkeypatch, used: list[int]) -> None:
    """The shard's writer (``_part_main``) run here, so the C writer takes it on a small
    ledger: rows numbered after the lines before its start, as the Python writer does."""
    monkeypatch.setattr(fastpath, "FAST_MIN", 0)
    lines = _mixed(tmp_path, normal=5)
    ledger = ledger_path(tmp_path)
    ledger.write_bytes(b"\n".join(lines) + b"\n")
    start = sum(len(line) + 1 for line in lines[: len(lines) // 3])
    results = []
    for pure in ("1", ""):
        monkeypatch.setenv("INTENT_LS_PURE_PYTHON", pure)
        shard = tmp_path / f"shard{pure}.sqlite"
        monkeypatch.setattr(sys, "argv", ["x", str(ledger), str(shard), str(start)])
        build._part_main()
        assert bool(used) == (pure == "")
        results.append(_contents([shard]))
    assert results[0] == results[1]
    assert results[0][0]["records"][0][0] == len(lines) // 3 + 1


# The writer, one block at a time ---------------------------------------------------------


def _write(
    folder: Path, data: bytes, *, c: bool, base: int = 0, seq: int = 0, name: str = "w"
) -> tuple[int, Contents]:
    """The rows of ``data`` (complete lines) written by one writer into a new cache."""
    path = folder / f"{name}-{'c' if c else 'py'}.sqlite"
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    db = create(path)
    strings = Strings(db)
    records: list[Any] = []
    touches: list[Any] = []
    if c:
        writer = native.NativeRows(path, strings)
        last = writer.block(memoryview(data), base, seq)
        writer.close()
    else:
        last = fastpath.fast_block(data, base, seq, strings, records, touches)
    db.execute("BEGIN")
    build._flush(db, strings, records, touches)
    db.execute("COMMIT")
    db.close()
    [contents] = _contents([path])
    path.unlink()
    return last, contents


def test_huge_numbers_and_offsets(tmp_path: Path) -> None:
    """``seq`` past 2**31 and 2**32, offsets past 2**40, keys with the top bit set (negative
    in SQLite) and the largest and smallest keys."""
    data = b"\n".join([_normal(3), *ADVERSARIAL[8:20], _normal(4)]) + b"\n"
    for base, seq in ((2**40 + 3, 2**31 - 2), (2**62, 2**32 + 5), (0, 2**62)):
        assert _write(tmp_path, data, c=True, base=base, seq=seq) == _write(
            tmp_path, data, c=False, base=base, seq=seq
        )
    keys = ["sha256:" + k + _H for k in ("f" * 16, "8" + "0" * 15, "7" + "f" * 15, "0" * 16)]
    line = _line(_rec([_file("k.py", _conv(hashes=keys))], digest=keys[0]))
    _, rows = _write(tmp_path, line + b"\n", c=True)
    assert [t[4] for t in rows["touches"]] == [-1, -(2**63), 2**63 - 1, 0]
    assert rows["records"][0][8] == -1


_PIECES = st.sampled_from(
    ["p.py", "módulo/ñ.py", "", "a\\b", 'q"', "x\n", "\x00", "\ud800", "\u2028", "INT-1"]
)
_HASHES = st.one_of(
    st.none(),
    st.sampled_from(["", "x", "sha256:", _UP, "sha256:" + _H, "md5:" + _H * 2, "sha256:0x1"]),
    st.text("0123456789abcdefABCDEFgx_+ -é", min_size=0, max_size=30).map(lambda s: "sha256:" + s),
)
_TEXT = st.one_of(st.none(), _PIECES, st.integers(-3, 3), st.just([]), st.just({}))


@st.composite
def _records(draw: Any) -> bytes:
    """A line of the fields the index reads, of right and wrong types and shapes."""
    convs = st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "contributor": st.one_of(
                    st.none(),
                    st.fixed_dictionaries({}, optional={"type": _TEXT, "model_id": _TEXT}),
                ),
                "related": st.one_of(
                    st.none(),
                    st.lists(
                        st.fixed_dictionaries(
                            {},
                            optional={
                                "type": st.sampled_from(["specification", "other", None, 1]),
                                "url": st.one_of(_PIECES.map(lambda s: URN + s), _TEXT),
                            },
                        ),
                        max_size=3,
                    ),
                ),
                "ranges": st.one_of(
                    st.none(),
                    st.lists(st.fixed_dictionaries({}, optional={"content_hash": _HASHES})),
                ),
            },
        ),
        max_size=3,
    )
    files = st.lists(
        st.fixed_dictionaries({}, optional={"path": _TEXT, "conversations": st.none() | convs}),
        max_size=3,
    )
    nodes = st.lists(
        st.fixed_dictionaries(
            {},
            optional={"path": _TEXT, "name": _TEXT, "kind": _TEXT, "content_hash": _HASHES},
        ),
        max_size=3,
    )
    meta = st.fixed_dictionaries(
        {},
        optional={
            "intent_id": _TEXT,
            "ast_nodes": st.none() | nodes,
            "digest": _HASHES,
            "mutation_class": _TEXT,
            "kind": _TEXT,
        },
    )
    record = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "files": st.none() | files,
                "metadata": st.fixed_dictionaries({}, optional={"intent_ls": meta}),
                "timestamp": _TEXT,
            },
        )
    )
    text = json.dumps(record, ensure_ascii=draw(st.booleans()))
    return text.encode("utf-8", "surrogatepass")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_records(), min_size=1, max_size=6))
def test_random_records_read_the_same_by_every_writer(tmp_path: Path, lines: list[bytes]) -> None:
    """Random records of right and wrong shapes: the C writer's rows are the Python fast
    path's, and both are json.loads's."""
    data = b"\n".join([*lines, _normal(1)]) + b"\n"
    c = _write(tmp_path, data, c=True, seq=10, base=7)
    assert c == _write(tmp_path, data, c=False, seq=10, base=7)
    db = create(tmp_path / "json.sqlite")
    strings = Strings(db)
    records: list[Any] = []
    touches: list[Any] = []
    json_block(data, 7, 10, strings, records, touches)
    db.execute("BEGIN")
    build._flush(db, strings, records, touches)
    db.execute("COMMIT")
    db.close()
    [slow] = _contents([tmp_path / "json.sqlite"])
    (tmp_path / "json.sqlite").unlink()
    # A line the fast path gives up on (a hash that is not hex, say) may have named its
    # path first: an id no row uses, which no answer can see. json.loads names none.
    assert _named(c[1]) == _named(slow)


def _named(contents: Contents) -> Contents:
    """``contents`` with only the strings its rows use."""
    used = {text for row in contents["touches"] for text in row[1:3] if text is not None}
    return {**contents, "strings": contents["strings"] & used}


def _hex(sequences: str) -> list[bytes]:
    return [bytes.fromhex(sequence) for sequence in sequences.split()]


#: UTF-8 at its edges: sequences Python's strict decoder takes, then ones it refuses
#: (overlong, surrogates, past U+10FFFF, cut short, a stray continuation byte).
UTF8 = _hex("7f c280 dfbf e0a080 ed9fbf ee8080 efbfbf f0908080 f48fbfbf f3bfbfbf")
NOT_UTF8 = _hex(
    "c080 c1bf e09fbf eda080 edbfbf f08fbfbf f4908080 f5808080 ff 80 c2 e180 f18080 c2c0 e180c0 "
    "f18080c0"
)


def _utf8_lines(raw: bytes) -> list[bytes]:
    """``raw`` in a path the index keeps, in a field it skips, and at the end of a line."""
    return [
        b'{"files":[{"path":"a' + raw + b'.py","conversations":[{"ranges":[{}]}]}]}',
        b'{"x":"' + raw + b'","timestamp":"t"}',
        b'{"timestamp":"t","x":"' + raw,
        b'{"timestamp":"t","x":"' + raw + b'"}',
    ]


def _consumed(folder: Path, line: bytes) -> bool:
    """Whether the C writer reads ``line`` itself (else it leaves it to Python)."""
    writer = _writer(folder / "consumed.sqlite")
    try:
        return _block(writer, line + b"\n")[1] == len(line) + 1
    finally:
        writer.abort()
        (folder / "consumed.sqlite").unlink()


def test_utf8_as_pythons_strict_decoder_reads_it(tmp_path: Path) -> None:
    """The C writer reads a line with non-ASCII text itself only if it is strict UTF-8,
    as the Python writer does; either way the rows are the Python writer's."""
    for raw in UTF8 + NOT_UTF8:
        lines = _utf8_lines(raw)
        data = b"\n".join(lines) + b"\n"
        assert _write(tmp_path, data, c=True) == _write(tmp_path, data, c=False), raw
        for line in lines[:2] + lines[3:]:
            assert _consumed(tmp_path, line) == (raw in UTF8), (raw, line)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.one_of(
            st.integers(0x80, 0xFF), st.integers(0x20, 0x7E).filter(lambda c: c not in b'"\\')
        ),
        max_size=10,
    ).map(bytes)
)
def test_random_bytes_read_as_python_reads_them(tmp_path: Path, raw: bytes) -> None:
    data = b"\n".join(_utf8_lines(raw)) + b"\n"
    assert _write(tmp_path, data, c=True) == _write(tmp_path, data, c=False)
    try:
        raw.decode()
    except UnicodeDecodeError:
        valid = False
    else:
        valid = True
    assert _consumed(tmp_path, _utf8_lines(raw)[1]) == valid


# Failures ------------------------------------------------------------------------------


def _writer(path: Path, miss: Callable[[str], int] | None = None) -> Any:
    """A bare C writer on a new cache file, with a dict of ids of its own."""
    db = create(path)
    db.close()
    ids: dict[str, int] = {}

    def give(text: str) -> int:
        ids[text] = len(ids) + 1
        return ids[text]

    assert native._bulk is not None
    return native._bulk.Writer(str(path), URN, FILE_ROW, ids, miss or give, native.INSERTS)


def _block(writer: Any, data: bytes, pos: int = 0, seq: int = 0) -> tuple[int, int, int]:
    decode, error = fastpath._decoder()
    return writer.block(data, pos, 0, seq, decode, (error, ValueError, RecursionError))


def _rows(path: Path) -> tuple[list[Any], list[Any]]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return (
            db.execute("SELECT * FROM records ORDER BY seq").fetchall(),
            db.execute("SELECT * FROM touches ORDER BY rowid").fetchall(),
        )


_RECORD = (1, 0, "t", None, None, None, None, "k", None)
_TOUCH = (1, 5, None, "file", -1)


def test_rows_of_a_wrong_type_are_refused_whole(tmp_path: Path) -> None:
    """A value that is no row value, a list that is not whole rows, a number over 64
    bits, a text SQLite cannot take: an exception, the lists left as they were, and
    nothing of them written."""
    path = tmp_path / "c.sqlite"
    writer = _writer(path)
    bad: list[tuple[list[Any], list[Any], type[BaseException]]] = [
        ([*_RECORD[:8], 1.5], [], TypeError),
        ([*_RECORD], [*_TOUCH[:4], b"k"], TypeError),
        ([*_RECORD], [*_TOUCH[:4]], ValueError),
        ([*_RECORD[:8]], [*_TOUCH], ValueError),
        ([*_RECORD[:8], 2**64], [*_TOUCH], OverflowError),
        ([*_RECORD[:2], "\ud800", *_RECORD[3:]], [*_TOUCH], UnicodeEncodeError),
    ]
    for records, touches, error in bad:
        before = list(records), list(touches)
        with pytest.raises(error):
            writer.rows(records, touches)
        assert (records, touches) == before
    with pytest.raises(TypeError):
        writer.rows((), [])
    records, touches = list(_RECORD), list(_TOUCH)
    writer.rows(records, touches)
    assert records == touches == []
    writer.close()
    assert _rows(path) == ([_RECORD], [_TOUCH])


def test_a_closed_writer_refuses_work(tmp_path: Path) -> None:
    for end in ("close", "abort"):
        path = tmp_path / f"{end}.sqlite"
        writer = _writer(path)
        writer.rows(list(_RECORD), list(_TOUCH))
        getattr(writer, end)()
        with pytest.raises(sqlite3.OperationalError, match="closed"):
            writer.rows([], [])
        with pytest.raises(sqlite3.OperationalError, match="closed"):
            _block(writer, _normal(1) + b"\n")
        with pytest.raises(sqlite3.OperationalError, match="closed"):
            writer.close()
        writer.abort()  # again: nothing to do
        assert _rows(path) == (([_RECORD], [_TOUCH]) if end == "close" else ([], []))


def test_a_file_that_is_no_cache(tmp_path: Path) -> None:
    """No such file, a folder, a file that is not a database, a database without the
    tables: OperationalError when the writer is made."""
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a database, not at all" * 100)
    other = tmp_path / "other.sqlite"
    with contextlib.closing(sqlite3.connect(other)) as db:
        db.execute("CREATE TABLE records(x)")
    assert native._bulk is not None
    for path in (tmp_path / "missing", tmp_path, junk, other):
        with pytest.raises(sqlite3.OperationalError):
            native._bulk.Writer(str(path), URN, FILE_ROW, {}, lambda text: 1, native.INSERTS)
    with pytest.raises(ValueError):
        native._bulk.Writer("a\0b", URN, FILE_ROW, {}, lambda text: 1, native.INSERTS)
    with pytest.raises(TypeError):
        native._bulk.Writer(str(other), 1, FILE_ROW, {}, lambda text: 1, native.INSERTS)
    assert not (tmp_path / "missing").exists()


def test_sqlite_failing_while_writing(tmp_path: Path) -> None:
    """An insert SQLite refuses (a trigger; a duplicate ``seq``; another connection's
    lock): OperationalError, and a writer aborted after it has committed nothing."""
    data = b"\n".join(_normal(i) for i in range(2000)) + b"\n"
    path = tmp_path / "trigger.sqlite"
    with contextlib.closing(create(path)) as db:
        db.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON touches BEGIN SELECT RAISE(ABORT, 'no'); END"
        )
    assert native._bulk is not None
    writer = native._bulk.Writer(str(path), URN, FILE_ROW, {}, lambda text: 1, native.INSERTS)
    with pytest.raises(sqlite3.OperationalError, match="no"):
        _block(writer, data)
    writer.abort()
    assert _rows(path) == ([], [])
    path = tmp_path / "twice.sqlite"
    writer = _writer(path)
    writer.rows(list(_RECORD), [])
    writer.rows(list(_RECORD), [])
    with pytest.raises(sqlite3.OperationalError, match="UNIQUE"):
        writer.close()
    writer.abort()
    assert _rows(path) == ([], [])
    path = tmp_path / "locked.sqlite"
    writer = _writer(path)
    with contextlib.closing(sqlite3.connect(path, timeout=0)) as other:
        other.execute("BEGIN EXCLUSIVE")
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            _block(writer, data)
    writer.abort()
    assert _rows(path) == ([], [])


def test_a_read_only_cache_file(tmp_path: Path) -> None:
    """SQLite opens a file it may not write read-only; the first insert fails."""
    path = tmp_path / "ro.sqlite"
    create(path).close()
    path.chmod(0o444)
    if os.access(path, os.W_OK):
        pytest.skip("this user writes read-only files (root)")
    assert native._bulk is not None
    writer = native._bulk.Writer(str(path), URN, FILE_ROW, {}, lambda text: 1, native.INSERTS)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        _block(writer, b"\n".join(_normal(i) for i in range(2000)) + b"\n")
    writer.abort()


def test_an_error_in_the_miss_callback(tmp_path: Path) -> None:
    """``miss`` raising (or giving no int) stops the block with its exception; the line
    it stopped in leaves no row, the lines before it are written."""
    data = b"\n".join(_normal(i) for i in range(30)) + b"\n"
    for answer, error in ((KeyError("x"), KeyError), ("1", TypeError), (2**70, OverflowError)):
        seen: list[str] = []
        path = tmp_path / f"{error.__name__}.sqlite"

        def miss(text: str, answer: Any = answer, seen: list[str] = seen) -> Any:
            seen.append(text)
            if len(seen) == 12:
                if isinstance(answer, BaseException):
                    raise answer
                return answer
            return len(seen)

        writer = _writer(path, miss)
        with pytest.raises(error):
            _block(writer, data)
        writer.close()
        records, touches = _rows(path)
        assert 0 < len(records) < 30
        assert {t[0] for t in touches} == {r[0] for r in records}
        assert records == [r for r in records if r[0] <= len(records)]


def test_a_decoder_that_fails_otherwise(tmp_path: Path) -> None:
    """An exception ``block`` is not told to leave to Python propagates, as does a
    decoder that returns something that is no record."""
    writer = _writer(tmp_path / "c.sqlite")

    def boom(line: Any) -> Any:
        raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        writer.block(b"{}\n", 0, 0, 0, boom, ValueError)
    with pytest.raises(AttributeError):
        writer.block(b"{}\n", 0, 0, 0, lambda line: 5, ValueError)
    assert writer.block(b"{}\n{}\n", 0, 0, 0, boom, ZeroDivisionError) == (0, 0, 3)
    for pos in (-1, 7):
        with pytest.raises(ValueError):
            writer.block(b"{}\n", pos, 0, 0, boom, ZeroDivisionError)
    writer.abort()


def test_the_writer_refuses_to_be_called_back_into(tmp_path: Path) -> None:
    """``miss`` calling the writer it was called from (here, or another thread): refused,
    not rows written in the middle of a line, or objects freed under it."""
    writer: Any = None
    calls: list[Callable[[], Any]] = [
        lambda: writer.rows([], []),
        lambda: _block(writer, _normal(5) + b"\n"),
        lambda: writer.close(),
        lambda: writer.abort(),
    ]
    for call in calls:
        path = tmp_path / "c.sqlite"
        with contextlib.suppress(FileNotFoundError):
            path.unlink()

        def miss(text: str, call: Callable[[], Any] = call) -> int:
            call()
            return 1

        writer = _writer(path, miss)
        with pytest.raises(RuntimeError):
            _block(writer, _line(_rec([_file("a.py", _conv(related=["I"]))])) + b"\n")
        writer.close()
        assert _rows(path) == ([], [])


def test_the_writer_holds_no_reference_and_little_memory(tmp_path: Path) -> None:
    """Blocks written again and again leave no Python object behind, and lines without a
    touches row (records alone) are written as they come, not kept until the end."""
    data = b"\n".join([_normal(i) for i in range(200)] + ADVERSARIAL[:30]) + b"\n"
    bare = b"\n".join(_line({"timestamp": f"t{i}", "x": "y" * 50}) for i in range(20_000)) + b"\n"
    _write(tmp_path, data, c=True)
    tracemalloc.start()
    for i in range(5):
        _write(tmp_path, data, c=True, name=f"r{i}")
    grown = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert grown < 64 * 1024
    path = tmp_path / "bare.sqlite"
    db = create(path)
    writer = native.NativeRows(path, Strings(db))
    tracemalloc.start()
    writer.block(memoryview(bare), 0, 0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    writer.close()
    db.close()
    assert peak < 2 * 1024 * 1024
    assert len(_rows(path)[0]) == 20_000
