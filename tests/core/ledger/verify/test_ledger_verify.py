"""``verify_ledger`` with its fast paths must give exactly the verdicts — line and reason —
of the plain algorithm (json.loads, jsonschema, re-serialization), on writer output and
on every kind of damage, including damage resealed with a matching digest."""

from __future__ import annotations

import copy
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_ledger_verify_schema import JSON_VALUES, mutate

from intent_ls.common.hashing import bytes_hash
from intent_ls.ledger.records import RecordedVerdict, build_approval_record, build_mutation_record
from intent_ls.ledger.store import GENESIS, Ledger, canonical_bytes, record_digest, seal
from intent_ls.ledger.verify import (
    CONFLICT_MESSAGE,
    Problem,
    VerifyResult,
    validator,
    verify_ledger,
)
from intent_ls.ledger.verify.lines import _digest, _proven
from intent_ls.policy.approvals import Approval, Contributor
from tests.core.ledger.ledger_helpers import mutation


def reference_verify(data: bytes) -> VerifyResult:
    """``verify_ledger`` without fast paths: every line parsed and schema-checked, then the
    chain rule of docs/ledger.md applied to the whole list of lines."""
    lines: list[tuple[str, dict[str, Any]]] = []
    for number, raw in enumerate(io.BytesIO(data), start=1):
        reason, meta = _reference_line(raw)
        if reason is None:
            digest = bytes_hash(raw[:-1])
            earlier = [h for h, _ in lines]
            if digest in earlier:
                reason = f"duplicated line: the same bytes as line {earlier.index(digest) + 1}"
        if reason is not None:
            return VerifyResult(len(lines), Problem(number, reason))
        lines.append((digest, meta))
    hashes = [h for h, _ in lines]
    absent = {a for _, meta in lines for a in meta.get("absent", [])}
    named = set()
    problems = []
    links = [
        (number, link)
        for number, (_, meta) in enumerate(lines, start=1)
        for link in [meta["prev"], *meta.get("parents", [])]
    ]
    for number, prev in links:
        if prev == GENESIS or prev in hashes[: number - 1] or prev in absent:
            named.add(prev)
        elif prev in hashes:
            where = hashes.index(prev) + 1
            problems.append(
                Problem(
                    number,
                    f"chain broken: prev names line {where}, which comes after it "
                    "(records reordered)",
                )
            )
        else:
            problems.append(
                Problem(
                    number,
                    "chain broken: prev names no line of the ledger (a record was removed "
                    "or altered)",
                )
            )
    if problems:  # a dangling reference is reported before an unnamed line
        return VerifyResult(len(lines), problems[0])
    for number, digest in enumerate(hashes[:-1], start=1):
        if digest not in named:
            return VerifyResult(
                len(lines),
                Problem(
                    number,
                    "chain broken: no later record names this line (the record after it "
                    "was removed, or this one was inserted)",
                ),
            )
    return VerifyResult(len(lines), None)


def _reference_line(raw: bytes) -> tuple[str | None, dict[str, Any]]:
    if not raw.endswith(b"\n"):
        return "torn line: no terminating newline (an interrupted append?)", {}
    body = raw[:-1]
    if body.startswith((b"<<<<<<<", b"|||||||", b"=======", b">>>>>>>")):
        return CONFLICT_MESSAGE, {}
    try:
        record = json.loads(body)
    except ValueError as exc:
        return f"not valid JSON: {exc}", {}
    if not isinstance(record, dict):
        return "not a JSON object", {}
    error = next(iter(sorted(validator().iter_errors(record), key=lambda e: list(e.path))), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        return f"schema: {where}: {error.message}", {}
    if not str(record["timestamp"]).endswith("Z"):
        return "timestamp is not UTC (must end in Z)", {}
    try:
        canonical = canonical_bytes(record) == body
    except UnicodeEncodeError:
        canonical = False  # the old code raised here
    if not canonical:
        return "not in canonical form (edited by hand?)", {}
    meta = record.get("metadata", {}).get("intent_ls")
    if not isinstance(meta, dict):
        return "metadata.intent_ls missing", {}
    if meta.get("digest") != record_digest(record):
        return "record digest mismatch: the record was altered", {}
    for key in ("parents", "absent"):
        value = meta.get(key)
        if value is not None and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            return f"metadata.intent_ls.{key} must be a list of line hashes", {}
    if not isinstance(meta.get("prev"), str):
        return "chain broken: prev missing", {}
    return None, meta


def _same_verdict(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_bytes(data)
        assert verify_ledger(path) == reference_verify(data)


# Field values that stress the fast path: quotes, backslashes and control characters
# (escaped in canonical JSON), non-ASCII, lengths around the schema's model_id limit.
tricky_text = st.one_of(
    st.text(max_size=10),
    st.text(alphabet='ab"\\\n\x00\x1f\x7fé𝔸\u2028', max_size=6),
    st.integers(248, 252).map(lambda n: "𝔸" * n),
)
contributors = st.builds(
    Contributor,
    st.sampled_from(["human", "ai", "mixed", "unknown"]),
    st.none() | tricky_text,
)
verdicts = st.builds(
    RecordedVerdict,
    tricky_text,
    tricky_text,
    st.just({}) | st.dictionaries(st.text(max_size=4), JSON_VALUES, max_size=2),
)
approvals = st.builds(
    Approval,
    tricky_text,
    st.text(alphabet="ab/é", min_size=1, max_size=5),
    st.integers(1, 9),
    st.integers(1, 9),
    tricky_text,
    contributors,
    st.none() | tricky_text,
)


@st.composite
def writer_records(draw: st.DrawFn) -> dict[str, Any]:
    root = Path("/nonexistent-root")
    intent = draw(st.none() | tricky_text)
    session = draw(st.none() | tricky_text)
    revision = draw(st.none() | tricky_text)
    if draw(st.booleans()):
        return build_approval_record(
            root, draw(approvals), intent_id=intent, session_id=session, revision=revision
        )
    record = build_mutation_record(
        root,
        draw(st.sampled_from(["a.py", "dir/b.txt", "é.go", 'q"uote.rs'])),
        draw(st.sampled_from(["", "def f():\n    return 1\n", "x\ny\n"])),
        draw(st.sampled_from(["def f():\n    return 2\n", "x\n", "z\r\ny\n"])),
        intent_id=intent,
        session_id=session,
        contributor=draw(contributors),
        verdicts=draw(st.lists(verdicts, max_size=2)),
        approvals=draw(st.lists(approvals, max_size=2)),
        revision=revision,
    )
    assert record is not None
    return record


def _ledger(records: list[dict[str, Any]]) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(Path(tmp) / "t.jsonl", fsync=False)
        for record in records:
            ledger.append(record)
        return ledger.path.read_bytes()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(writer_records(), min_size=1, max_size=3))
def test_writer_output_verifies(records: list[dict[str, Any]]) -> None:
    _same_verdict(_ledger(records))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(writer_records(), min_size=1, max_size=3), st.data())
def test_byte_damage_gets_the_same_verdict(records: list[dict], data: st.DataObject) -> None:
    ledger = bytearray(_ledger(records))
    start = data.draw(st.integers(0, len(ledger) - 1))
    end = data.draw(st.integers(start, min(len(ledger), start + 4)))
    ledger[start:end] = data.draw(st.binary(max_size=4))
    _same_verdict(bytes(ledger))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(writer_records(), st.data())
def test_resealed_record_damage_gets_the_same_verdict(
    record: dict[str, Any], data: st.DataObject
) -> None:
    """The record is changed as data (wrong types, missing keys, odd values…) and sealed
    again, so its digest and chain are right and only the schema decides."""
    record = copy.deepcopy(record)
    mutate(data, record)
    try:
        line = seal(record, GENESIS)
    except (UnicodeEncodeError, AttributeError, TypeError, ValueError):
        return  # not something the writer can serialize
    _same_verdict(line + b"\n")


# Edits a hand, a bad merge or an attacker could make to a line's text.
SNIPPETS = ['"', "\\", "\\u0041", " ", "\n", "{}", "[]", ",", ":", "0", "01", "-0", "1.0"]
SNIPPETS += ["null", "true", ',"x":1', '"digest":', "Z", "é", "\x00", "\x7f", "\ud800"]
_DIGEST_MEMBER = re.compile(rb',"digest":"([^"]*)"')


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(writer_records(), st.data())
def test_text_damage_with_a_recomputed_digest_gets_the_same_verdict(
    record: dict[str, Any], data: st.DataObject
) -> None:
    """The strongest test of the fast path's grammar: the line's text is edited and its
    digest recomputed the way the fast path computes it, so only the grammar stands
    between a damaged line and acceptance."""
    text = seal(copy.deepcopy(record), GENESIS).decode()
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start, min(len(text), start + 3)))
    insert = data.draw(st.sampled_from(SNIPPETS) | st.text(max_size=3))
    line = (text[:start] + insert + text[end:]).encode("utf-8", "surrogatepass")
    found = _DIGEST_MEMBER.search(line)
    if found is not None:
        digest = bytes_hash(line[: found.start()] + line[found.end() :]).encode()
        line = line[: found.start(1)] + digest + line[found.end(1) :]
    _same_verdict(line + b"\n")


def _full_line() -> bytes:
    """A writer line with every part the fast path's grammar knows."""
    record = build_mutation_record(
        Path("/nonexistent-root"),
        "a.py",
        "def f():\n    return 1\n",
        "def f():\n    return 2\n",
        intent_id="INT-1",
        session_id="s",
        contributor=Contributor("ai", "anthropic/model"),
        verdicts=[RecordedVerdict("out-of-scope", "m", {})],
        approvals=[Approval("out-of-scope", "a.py", 2, 2, "h", Contributor("ai", "m"), "why")],
        revision="abc",
    )
    assert record is not None
    return seal(record, GENESIS)


FULL_LINE = _full_line()
# (pattern, replacement): each edit at the edge of what the grammar must reject or may
# accept; the digest is recomputed afterwards.
EDITS = [
    (rb'"start_line":2\}', rb'"start_line":0}'),
    (rb'"start_line":2\}', rb'"start_line":02}'),
    (rb'"start_line":2\}', rb'"start_line":-1}'),
    (rb'"start_line":2\}', rb'"start_line":2.0}'),
    (rb'"start_line":2\}', rb'"start_line":2e0}'),
    (rb'"start_line":2\}', rb'"start_line":true}'),
    (rb'"end_line":2,', rb'"end_line":12345678901234567890,'),
    (rb'"deleted_lines":\d+', rb'"deleted_lines":-0'),
    (rb'"deleted_lines":\d+', rb'"deleted_lines":00'),
    (rb'"deleted_lines":\d+', rb'"deleted_lines":-3'),
    (rb'"deleted_lines":\d+', rb'"deleted_lines":1.5'),
    (rb'"end_line":(\d+),"kind"', rb'"end_line":0\1,"kind"'),
    (rb'"end_line":(\d+),"kind"', rb'"end_line":-0,"kind"'),
    (rb'"end_line":2,"path":"a.py","reason"', rb'"end_line":02,"path":"a.py","reason"'),
    (rb'"type":"ai"\},"ranges"', rb'"type":"robot"},"ranges"'),
    (rb'"type":"ai"\},"ranges"', rb'"type":"AI"},"ranges"'),
    (rb'"model_id":"anthropic/model"', b'"model_id":"' + "𝔸".encode() * 250 + b'"'),
    (rb'"model_id":"anthropic/model"', b'"model_id":"' + "𝔸".encode() * 251 + b'"'),
    (rb'"type":"git"', rb'"type":"cvs"'),
    (rb'"version":"0\.1\.0"\}$', rb'"version":"0.1"}'),
    (rb'"version":"0\.1\.0"\}$', rb'"version":"00.1.0"}'),
    (rb'Z","tool"', rb'","tool"'),
    (rb'Z","tool"', rb'+00:00","tool"'),
    (rb'Z","tool"', rb'z","tool"'),
    (rb'"timestamp":"\d{4}-\d\d', rb'"timestamp":"2026-13'),
    (rb'"timestamp":"\d{4}', '"timestamp":"２０２６'.encode()),
    (rb'"id":"[0-9a-f]', rb'"id":"A'),
    (rb'"id":"', rb'"id":"{'),
    (rb'"details":\{\}', rb'"details":{"a":1}'),
    (rb'"details":\{\}', rb'"details":{"b":1,"a":2}'),
    (rb'\{"model_id":"m","type":"ai"\}', rb'{"type":"ai","model_id":"m"}'),
    (rb'"reason":"why",', rb""),
    (rb'"kind":"mutation"', rb'"kind":true'),
    (rb'"kind":"mutation"', rb'"kind":null'),
    (rb'"path":"a.py"\}\]', b'"path":"a\x1f.py"}]'),
    (rb'"path":"a.py"\}\]', b'"path":"a\x7f.py"}]'),
    (rb'"path":"a.py"\}\]', b'"path":"a\xed\xa0\x80.py"}]'),
    (rb'"path":"a.py"\}\]', b'"path":"a\xff.py"}]'),
    (rb'"path":"a.py"\}\]', rb'"path":"a\\u0041.py"}]'),  # in a template \\ is one \
    (rb',"id"', rb', "id"'),
    (rb'"files":', rb'"files" :'),
    (rb'"prev":"sha256:0', rb'"prev":"sha256:1'),
]


@pytest.mark.parametrize(("pattern", "replacement"), EDITS)
def test_grammar_edges_get_the_same_verdict(pattern: bytes, replacement: bytes) -> None:
    line, count = re.subn(pattern, replacement, FULL_LINE, count=1)
    assert count == 1, pattern
    found = _DIGEST_MEMBER.search(line)
    assert found is not None
    digest = bytes_hash(line[: found.start()] + line[found.end() :]).encode()
    _same_verdict(line[: found.start(1)] + digest + line[found.end(1) :] + b"\n")


def test_writer_lines_take_the_fast_path(tmp_path: Path) -> None:
    assert _proven(FULL_LINE) == (bytes_hash(FULL_LINE), GENESIS)
    data = _ledger([mutation(tmp_path, i, intent=f"INT-{i}") for i in range(3)])
    prev = GENESIS
    for body in data.splitlines():
        assert _proven(body) == (bytes_hash(body), prev)
        prev = bytes_hash(body)


def test_lone_surrogate_is_reported_not_raised(tmp_path: Path) -> None:
    record = mutation(tmp_path, 1)
    record["tool"]["name"] = "\ud800"
    line = json.dumps(record, sort_keys=True, separators=(",", ":")).encode()
    path = tmp_path / "t.jsonl"
    path.write_bytes(line + b"\n")
    assert verify_ledger(path).problem == Problem(1, "not in canonical form (edited by hand?)")


def test_json_nested_too_deep_is_reported_not_raised(tmp_path: Path) -> None:
    """A hostile commit can put a line Python's JSON decoder cannot recurse into."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"[" * 100_000 + b"\n")
    problem = verify_ledger(path).problem
    assert problem is not None and problem.line == 1
    assert problem.reason.startswith("not valid JSON: maximum recursion depth")


metas = st.dictionaries(
    st.sampled_from(["a", "digest", "prev", "z", "dig"]),
    JSON_VALUES | st.text(alphabet='"\\é,}', max_size=4),
    max_size=4,
)


@settings(max_examples=500, deadline=None)
@given(metas, st.dictionaries(st.sampled_from(["digest", "other"]), JSON_VALUES, max_size=2))
def test_digest_from_the_line_equals_record_digest(
    meta: dict[str, Any], other: dict[str, Any]
) -> None:
    record = {"metadata": {"intent_ls": meta, "other": other}, "id": "x"}
    body = canonical_bytes(record)
    assert _digest(record, meta, body) == record_digest(copy.deepcopy(record))
