"""JSON Schema (draft 2020-12) for ``active_intents.yaml``, built from ``spec_shape``.

YAML language servers use it for completion, hover and structural checks while the
human types. It states what one node can be: keys, value types, required fields, the
statuses, the ``policy:`` settings, and that a live intent owns at least one glob. What
needs the whole file or gitignore semantics (duplicate ids, overlapping scopes, glob
validity, an unknown ``active_intent_id``) is left to intent-ls's own diagnostics.
Unknown keys are allowed because the validator only warns about them.
"""

from __future__ import annotations

from typing import Any

from intent_ls.spec import shape
from intent_ls.spec.model import Status

DRAFT = "https://json-schema.org/draft/2020-12/schema"

_TEXT_LIST: dict[str, Any] = {"type": ["array", "null"], "items": {"type": "string"}}
_NON_BLANK: dict[str, Any] = {"type": "string", "pattern": r"\S"}
#: A status that makes an intent live: absent (read as IN_PROGRESS) or IN_PROGRESS.
_LIVE: dict[str, Any] = {
    "anyOf": [
        {"not": {"required": ["status"]}},
        {"required": ["status"], "properties": {"status": {"const": Status.IN_PROGRESS.value}}},
    ]
}


def spec_schema() -> dict[str, Any]:
    _, legacy = _current_and_legacy(shape.TOP_FIELDS)
    return {
        "$schema": DRAFT,
        "title": "intent-ls intent spec (.orchestration/active_intents.yaml)",
        "description": "The intents of a workspace: who may change which files, and why.",
        # An empty file is only warned about.
        "type": ["object", "null"],
        "properties": {
            f.name: _value(f) if f.legacy_of is None else {"description": f.description}
            for f in shape.TOP_FIELDS
        },
        "allOf": _required(shape.TOP_FIELDS, legacy),
        "$defs": {"intent": _intent()},
    }


def _current_and_legacy(
    fields: tuple[shape.Field, ...],
) -> tuple[dict[str, shape.Field], dict[str, shape.Field]]:
    current = {f.name: f for f in fields if f.legacy_of is None}
    legacy = {f.legacy_of: f for f in fields if f.legacy_of is not None}
    return current, legacy


def _required(
    fields: tuple[shape.Field, ...], legacy: dict[str, shape.Field]
) -> list[dict[str, Any]]:
    """Each required field, or else its legacy spelling, which is read (and checked)
    only when the current spelling is absent."""
    out: list[dict[str, Any]] = []
    for field in fields:
        if not field.required:
            continue
        old = legacy.get(field.name)
        if old is None:
            out.append({"required": [field.name]})
            continue
        out.append(
            {
                "if": {"required": [field.name]},
                "then": {},
                "else": {"required": [old.name], "properties": {old.name: _value(old)}},
            }
        )
    return out


def _value(field: shape.Field) -> dict[str, Any]:
    schema: dict[str, Any]
    if field.kind is shape.Kind.INTENTS:
        schema = {"type": ["array", "null"], "items": {"$ref": "#/$defs/intent"}}
    elif field.kind is shape.Kind.TEXT:
        if field.required or field.legacy_of:
            schema = dict(_NON_BLANK)
        else:
            schema = {"type": ["string", "null"] if field.nullable else "string"}
    elif field.kind is shape.Kind.STATUS:
        schema = {"type": "string", "enum": [s.value for s in Status]}
    elif field.kind in (shape.Kind.GLOBS, shape.Kind.TEXT_LIST):
        schema = dict(_TEXT_LIST)
    elif field.kind is shape.Kind.TIMESTAMP:
        schema = {"type": "string"}
    elif field.kind is shape.Kind.COUNT:
        schema = {"type": ["integer", "null"], "minimum": field.minimum}
    elif field.kind is shape.Kind.POLICY:
        schema = {
            "type": ["object", "null"],
            "properties": {f.name: _value(f) for f in shape.POLICY_FIELDS},
        }
    elif field.kind is shape.Kind.LEGACY_SCOPE:
        schema = {
            "type": "object",
            "properties": {"paths": {**_TEXT_LIST, "description": "The owned globs."}},
            "required": ["paths"],
        }
    else:
        schema = {}
    return {"description": field.description, **schema}


def _intent() -> dict[str, Any]:
    current, legacy = _current_and_legacy(shape.INTENT_FIELDS + shape.LEGACY_INTENT_FIELDS)
    non_empty: dict[str, Any] = {"type": "array", "minItems": 1}
    live: dict[str, Any] = {}
    for name in shape.of_kind(shape.INTENT_FIELDS, shape.Kind.GLOBS):
        old = legacy.get(name)
        live[name] = {
            "if": {"required": [name]},
            "then": {"properties": {name: non_empty}},
            "else": (
                {"properties": {old.name: {"properties": {"paths": non_empty}}}} if old else {}
            ),
        }
    return {
        "type": "object",
        "properties": {
            **{f.name: _value(f) for f in current.values()},
            **{f.name: {"description": f.description} for f in legacy.values()},
        },
        "allOf": [
            *_required(shape.INTENT_FIELDS, legacy),
            {"if": _LIVE, "then": {"allOf": list(live.values())}},
        ],
    }
