"""The JSON Schema and the validator agree: a spec passes the schema exactly when the
validator finds no structural error in it (what the schema is for), on a hand-written
corpus and on generated specs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from intent_ls.spec import load as S
from intent_ls.spec import shape
from intent_ls.spec.load import load_spec_text
from intent_ls.spec.model import Severity
from intent_ls.spec.schema import spec_schema

EXAMPLE = Path(__file__).parents[3] / "examples/workspace/.orchestration/active_intents.yaml"
#: What one node's shape decides; the rest needs the whole file or gitignore semantics.
STRUCTURAL = {S.WRONG_TYPE, S.MISSING_FIELD, S.UNKNOWN_STATUS, S.EMPTY_SCOPE}
VALIDATOR = jsonschema.Draft202012Validator(spec_schema())


class _Loader(yaml.SafeLoader):
    """YAML as a YAML language server sees it: dates are strings (YAML 1.2)."""


_Loader.add_constructor(
    "tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node)
)


def structural_errors(text: str) -> set[str]:
    result = load_spec_text(text)
    return {p.code for p in result.problems if p.severity is Severity.ERROR} & STRUCTURAL


def schema_errors(text: str) -> list[str]:
    instance = yaml.load(text, Loader=_Loader)
    return [e.message for e in VALIDATOR.iter_errors(instance)]


def intent(body: str) -> str:
    return "active_intents:\n  - " + body.strip().replace("\n", "\n    ") + "\n"


BASE = "id: A\nname: a\nstatus: DRAFT\nowned_scope: [src/**]"

VALID = [
    EXAMPLE.read_text(encoding="utf-8"),
    "",
    "active_intents:\n",
    "active_intents: []\n",
    intent(BASE),
    intent(BASE.replace("status: DRAFT", "")),
    intent(BASE.replace("DRAFT", "COMPLETED").replace("[src/**]", "[]")),
    intent(BASE.replace("[src/**]", "")),
    intent(BASE + "\ncreated_at: 2025-01-31\nupdated_at: '2025-02-01T10:00:00Z'"),
    intent(BASE + "\nconstraints:\nacceptance_criteria: [a, b]\ndescription: {any: thing}"),
    intent(BASE + "\nunknown_key: 1"),  # only a warning
    intent("intent_id: A\ntitle: a\nscope: {paths: [src/**]}"),
    intent("id: A\nintent_id: 7\nname: a\nowned_scope: [x]"),  # legacy key ignored
    "intents:\n  - intent_id: A\n    title: a\n    scope:\n      paths: [src/**]\n",
    intent(BASE) + "intents: 7\n",  # ignored next to active_intents (warning)
    intent(BASE) + "active_intent_id: A\nversion: 2\n",
    intent(BASE) + "active_intent_id:\n",
    # Not structural: the validator reports them, the schema cannot see them.
    intent(BASE) + "  - " + BASE.replace("\n", "\n    ") + "\n",
    intent(BASE.replace("src/**", "../out/**")),
    intent(BASE.replace("src/**", "'src/[ab'")),
    intent(BASE) + "active_intent_id: NOPE\n",
    intent(BASE) + "policy:\n",
    intent(BASE) + "policy:\n  maxDeletedLines: 5\n  protectedPaths: [db/**, '!db/seed.sql']\n",
    intent(BASE) + "policy: {maxDeletedLines: 0, protectedPaths: []}\n",
    intent(BASE) + "policy: {maxDeletedLines: null, protectedPaths: null, other: 1}\n",
    intent(BASE) + "policy: {protectedPaths: ['../out/**']}\n",  # glob checks: validator only
    intent(BASE) + "policy: {agentWritablePaths: ['~/.rustup'], agentMaxTasks: 32}\n",
]

INVALID = [
    "- a\n- b\n",
    "version: 1\n",
    "active_intents: 7\n",
    "active_intents: [7]\n",
    intent(BASE.replace("id: A", "id: 7")),
    intent(BASE.replace("id: A", "id: ''")),
    intent(BASE.replace("id: A\n", "")),
    intent(BASE.replace("name: a\n", "")),
    intent(BASE.replace("owned_scope: [src/**]", "")),
    intent(BASE.replace("DRAFT", "DONE")),
    intent(BASE.replace("DRAFT", "")),
    intent(BASE.replace("status: DRAFT", "status: 3")),
    intent(BASE.replace("DRAFT", "IN_PROGRESS").replace("[src/**]", "[]")),
    intent(BASE.replace("status: DRAFT\n", "").replace("[src/**]", "")),
    intent(BASE.replace("[src/**]", "src/**")),
    intent(BASE.replace("[src/**]", "[1]")),
    intent(BASE.replace("[src/**]", "{a: 1}")),
    intent(BASE + "\nconstraints: one"),
    intent(BASE + "\ncreated_at: 5"),
    intent(BASE + "\nupdated_at:"),
    intent("intent_id: A\ntitle: a\nscope: [src/**]"),
    intent("intent_id: A\ntitle: a\nscope: {other: 1}"),
    intent("intent_id: A\ntitle: a\nstatus: IN_PROGRESS\nscope: {paths: []}"),
    "intents:\n  - intent_id: 7\n    title: a\n    scope: {paths: [a]}\n",
    intent(BASE) + "active_intent_id: [A]\n",
    intent(BASE) + "policy: 5\n",
    intent(BASE) + "policy: [maxDeletedLines]\n",
    intent(BASE) + "policy: {maxDeletedLines: -1}\n",
    intent(BASE) + "policy: {maxDeletedLines: 1.5}\n",
    intent(BASE) + "policy: {maxDeletedLines: '5'}\n",
    intent(BASE) + "policy: {agentMaxTasks: 31}\n",
    intent(BASE) + "policy: {maxDeletedLines: true}\n",
    intent(BASE) + "policy: {protectedPaths: db/**}\n",
    intent(BASE) + "policy: {protectedPaths: [1]}\n",
]


@pytest.mark.parametrize("text", VALID)
def test_valid_corpus(text: str) -> None:
    assert structural_errors(text) == set()
    assert schema_errors(text) == []


@pytest.mark.parametrize("text", INVALID)
def test_invalid_corpus(text: str) -> None:
    assert structural_errors(text), "the corpus entry should be invalid"
    assert schema_errors(text), f"the schema accepts what the validator rejects:\n{text}"


_scalar = st.sampled_from(["x", "", " ", "INT-9", "src/**", 7, 1.5, True, None])
_status = st.sampled_from(["DRAFT", "IN_PROGRESS", "COMPLETED", "BLOCKED", "ARCHIVED", "done"])
_strings = st.lists(st.sampled_from(["src/**", "a/b.py", "x"]), max_size=2)
_value = st.one_of(
    _scalar,
    _status,
    _strings,
    st.lists(_scalar, max_size=2),
    st.dictionaries(st.sampled_from(["paths", "other"]), st.one_of(_strings, _scalar), max_size=2),
)
_keys = st.sampled_from(
    [*shape.names(shape.INTENT_FIELDS), *shape.names(shape.LEGACY_INTENT_FIELDS), "extra"]
)
_intent = st.one_of(st.dictionaries(_keys, _value, max_size=6), _scalar)
_policy = st.one_of(
    st.dictionaries(
        st.sampled_from([*shape.names(shape.POLICY_FIELDS), "extra"]),
        st.one_of(_value, st.integers(-2, 30)),
        max_size=3,
    ),
    _scalar,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["active_intents", "intents", "active_intent_id", "version"]),
        st.one_of(st.lists(_intent, max_size=2), _scalar),
        max_size=3,
    ),
    st.one_of(st.none(), _policy),
)
def test_schema_and_validator_agree_on_generated_specs(
    doc: dict[str, Any], policy: dict[str, Any] | None
) -> None:
    if policy is not None:
        doc = {**doc, "policy": policy}
    text = yaml.safe_dump(doc, sort_keys=False)
    assert (structural_errors(text) == set()) == (schema_errors(text) == []), text


def test_every_field_of_the_shape_is_in_the_schema() -> None:
    schema = spec_schema()
    assert set(schema["properties"]) == set(shape.names(shape.TOP_FIELDS))
    assert set(schema["properties"]["policy"]["properties"]) == set(
        shape.names(shape.POLICY_FIELDS)
    )
    assert set(schema["$defs"]["intent"]["properties"]) == set(
        shape.names(shape.INTENT_FIELDS + shape.LEGACY_INTENT_FIELDS)
    )


def test_the_cli_prints_a_draft_2020_12_schema() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "intent_ls", "schema"], capture_output=True, text=True, check=True
    )
    printed = json.loads(proc.stdout)
    assert printed == spec_schema()
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(printed)
