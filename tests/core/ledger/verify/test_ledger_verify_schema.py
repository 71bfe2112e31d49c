"""The plain-Python schema checks must say exactly what jsonschema says about the bundled
schema, on valid records and on every kind of damage to them."""

from __future__ import annotations

import copy
import hashlib
import math
from importlib import resources
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from intent_ls.ledger.conformance import conforms
from intent_ls.ledger.verify import check_record, validator

#: The schema revision conformance.py implements: a changed schema needs changed checks.
SCHEMA_SHA256 = "0cdb74c57aaeeedfc78e95a5cfbe0328978307781f1f0d0511cc094f0873f881"

UUID = "0b1f5c3e-9d2a-4c7b-8e6f-1a2b3c4d5e6f"
TRICKY_UUIDS = [
    UUID,
    UUID.upper(),
    "{" + UUID + "}",
    "urn:uuid:" + UUID,
    UUID.replace("-", ""),
    UUID[:8] + UUID[9:],
    UUID + "-",
    "0b1f5c3e-9d2a-4c7b-8e6f-1a2b-3c4d-5e6f",  # UUID() drops every hyphen
    "0b1f5c3e-9d2a-4c7b-8e6f-1a2b_3c4d5e6f",
    "0b1f5c3e-9d2a-4c7b-8e6f-1a2b3c4d5e6",
    "0b1f5c3e-9d2a-4c7b-8e6f-1a2b3c4d5e6g",
    "٠b1f5c3e-9d2a-4c7b-8e6f-1a2b3c4d5e6f",  # an Arabic-Indic digit: int() takes it
    " 0b1f5c3e-9d2a-4c7b-8e6f-1a2b3c4d5e6f",
    "0b1f5c3e-9d2a-4c7b-8e6f-+a2b3c4d5e6f",
    "",
]
TRICKY_TIMESTAMPS = [
    "2026-01-02T03:04:05.678901Z",
    "2026-01-02T03:04:05Z",
    "2026-01-02t03:04:05z",
    "2026-01-02T03:04:05+01:00",
    "2026-01-02T03:04:05.678901",
    "2026-13-02T03:04:05Z",
    "2026-02-30T03:04:05Z",
    "2026-01-02T24:00:00Z",
    "2026-01-02T03:04:60Z",
    "2026-01-02 03:04:05Z",
    "2026-01-02T03:04:05Z\n",
    "２０２６-01-02T03:04:05Z",
    "٢٠٢٦-01-02T03:04:05Z",
    "2026-01-02T03:04:05.Z",
    "2026-01-02T03:04:05+25:00",
    "",
]
TRICKY_VERSIONS = ["0.1.0", "10.20.30", "0.1", "0.1.0.1", "v0.1.0", "0.1.0\n", "\n0.1.0", "٠.١.٠"]
TRICKY_NUMBERS = [1, 2, 10**30, 0, -1, 1.0, 2.0, 0.0, -0.0, 1.5, 0.5, True, False]
TRICKY_NUMBERS += [math.inf, -math.inf, math.nan, 1e300, "1", None, [1], {"n": 1}]
ENUM_WORDS = ["git", "jj", "hg", "svn", "human", "ai", "mixed", "unknown", "Git", "AI", ""]

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)
text = st.text(max_size=12)
contributor = st.fixed_dictionaries(
    {"type": st.sampled_from(["human", "ai", "mixed", "unknown"])},
    optional={"model_id": st.text(max_size=250)},
)
range_ = st.fixed_dictionaries(
    {"start_line": st.integers(1, 10**6), "end_line": st.integers(1, 10**6)},
    optional={"content_hash": text, "contributor": contributor},
)
conversation = st.fixed_dictionaries(
    {"ranges": st.lists(range_, max_size=3)},
    optional={
        "url": text,
        "contributor": contributor,
        "related": st.lists(st.fixed_dictionaries({"type": text, "url": text}), max_size=2),
    },
)
file_ = st.fixed_dictionaries({"path": text, "conversations": st.lists(conversation, max_size=2)})
records = st.fixed_dictionaries(
    {
        "version": st.from_regex(r"\A[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\Z"),
        "id": st.uuids().map(str),
        "timestamp": st.datetimes().map(lambda d: d.isoformat() + "Z"),
        "files": st.lists(file_, max_size=2),
    },
    optional={
        "vcs": st.fixed_dictionaries(
            {"type": st.sampled_from(["git", "jj", "hg", "svn"]), "revision": text}
        ),
        "tool": st.fixed_dictionaries({}, optional={"name": text, "version": text}),
        "metadata": st.dictionaries(text, JSON_VALUES, max_size=3),
    },
)
#: Values a mutation puts anywhere: wrong types, edge numbers, near-miss formats, big
#: and non-ASCII strings. Copied when drawn: a later mutation may change a drawn list or
#: dict in place, and the shared originals must stay what hypothesis replays.
ODD_VALUES = st.one_of(
    JSON_VALUES,
    st.sampled_from(TRICKY_NUMBERS + TRICKY_UUIDS + TRICKY_TIMESTAMPS + TRICKY_VERSIONS),
    st.sampled_from(ENUM_WORDS),
    st.integers(248, 253).map(lambda n: "é" * n),
    st.integers(248, 253).map(lambda n: "𝔸" * n),
    st.just("x" * 100_000),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=20),
).map(copy.deepcopy)


def _containers(value: Any, out: list[Any]) -> list[Any]:
    if isinstance(value, (dict, list)):
        out.append(value)
        for child in value.values() if isinstance(value, dict) else value:
            _containers(child, out)
    return out


def mutate(data: st.DataObject, record: dict[str, Any]) -> None:
    """One random change at a random place: a key removed, a value replaced, a key added,
    a list emptied or grown."""
    target = data.draw(st.sampled_from(_containers(record, [])))
    if isinstance(target, list):
        action = data.draw(st.sampled_from(["replace", "clear", "append"]))
        if action == "clear" or (action == "replace" and not target):
            target.clear()
        elif action == "append":
            target.append(data.draw(ODD_VALUES))
        else:
            target[data.draw(st.integers(0, len(target) - 1))] = data.draw(ODD_VALUES)
        return
    action = data.draw(st.sampled_from(["delete", "replace", "add"]))
    if action == "add" or not target:
        target[data.draw(st.text(max_size=10))] = data.draw(ODD_VALUES)
    elif action == "delete":
        del target[data.draw(st.sampled_from(sorted(target)))]
    else:
        target[data.draw(st.sampled_from(sorted(target)))] = data.draw(ODD_VALUES)


def _agree(record: dict[str, Any]) -> None:
    assert conforms(record) == validator().is_valid(record), record


def test_the_checks_were_written_for_the_bundled_schema() -> None:
    schema = resources.files("intent_ls.ledger").joinpath("trace-record.schema.json")
    assert hashlib.sha256(schema.read_bytes()).hexdigest() == SCHEMA_SHA256, (
        "the bundled schema changed: update intent_ls/ledger/conformance.py (and the fast "
        "path in verify/lines.py), then this hash"
    )


@settings(max_examples=300, deadline=None)
@given(records)
def test_valid_records_agree(record: dict[str, Any]) -> None:
    assert conforms(record)
    _agree(record)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records, st.data())
def test_mutated_records_agree(record: dict[str, Any], data: st.DataObject) -> None:
    for _ in range(data.draw(st.integers(1, 3))):
        mutate(data, record)
    _agree(record)


def _writer_record() -> dict[str, Any]:
    return {
        "version": "0.1.0",
        "id": UUID,
        "timestamp": "2026-01-02T03:04:05.678901Z",
        "tool": {"name": "intent-ls", "version": "0.1.0"},
        "vcs": {"type": "git", "revision": "abc"},
        "files": [
            {
                "path": "a.py",
                "conversations": [
                    {
                        "contributor": {"type": "ai", "model_id": "anthropic/claude"},
                        "ranges": [{"start_line": 1, "end_line": 2, "content_hash": "h"}],
                        "related": [{"type": "specification", "url": "urn:intent:X"}],
                    }
                ],
            }
        ],
        "metadata": {"intent_ls": {}},
    }


FIELDS = {
    ("id",): TRICKY_UUIDS,
    ("timestamp",): TRICKY_TIMESTAMPS,
    ("version",): TRICKY_VERSIONS,
    ("vcs", "type"): ENUM_WORDS,
    ("files", 0, "conversations", 0, "contributor", "type"): ENUM_WORDS,
    ("files", 0, "conversations", 0, "ranges", 0, "start_line"): TRICKY_NUMBERS,
    ("files", 0, "conversations", 0, "ranges", 0, "end_line"): TRICKY_NUMBERS,
    ("files", 0, "conversations", 0, "contributor", "model_id"): [
        "é" * 250,
        "é" * 251,
        "𝔸" * 250,
        "𝔸" * 251,
        "",
        None,
    ],
}


@pytest.mark.parametrize(
    ("path", "value"), [(path, value) for path, values in FIELDS.items() for value in values]
)
def test_edge_values_agree(path: tuple[Any, ...], value: Any) -> None:
    record = _writer_record()
    target: Any = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = copy.deepcopy(value)
    _agree(record)


def test_jsonschema_has_the_last_word(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the fast checks ever wrong about a valid record, the record still passes."""
    monkeypatch.setattr("intent_ls.ledger.verify.lines.conforms", lambda record: False)
    assert check_record(_writer_record()) is None


def test_an_invalid_record_gets_jsonschemas_message() -> None:
    record = _writer_record()
    record["files"][0]["conversations"][0]["ranges"][0]["start_line"] = 0
    assert check_record(record) == (
        "schema: files/0/conversations/0/ranges/0/start_line: 0 is less than the minimum of 1"
    )
