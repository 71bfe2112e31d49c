"""The bundled Agent Trace schema (``trace-record.schema.json``) as plain Python checks.

jsonschema spends ~0.15 ms walking the schema for every record, which made ``trace
verify`` of a 100k-record ledger take ~20 s; these checks take ~1 µs. They must answer
exactly what jsonschema answers for the bundled schema with the format checker of
:func:`intent_ls.ledger.verify.validator` (formats ``uuid`` and ``date-time``; ``uri`` is
not checked). The schema stays the source of truth: ``verify`` asks jsonschema again for
every record judged invalid here (for its error message), and a property test compares
both answers on generated and mutated records. Update this module together with the
schema: a test pins the schema's hash.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from uuid import UUID

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
# jsonschema's "pattern" is re.search with the schema's pattern, so "$" also matches
# before a final newline; the same call keeps that.
_VERSION = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$").search
# What the writer emits; anything else goes through the exact rule below.
_PLAIN_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").fullmatch
_VCS_TYPES = frozenset(("git", "jj", "hg", "svn"))
_CONTRIBUTOR_TYPES = frozenset(("human", "ai", "mixed", "unknown"))
_REQUIRED = frozenset(("version", "id", "timestamp", "files"))


def is_date_time(value: object) -> bool:
    """RFC 3339 date-time: jsonschema checks this format only with an optional package
    installed, so the format checker registers this one (raises ValueError on a date
    that does not exist, which the checker counts as not conforming)."""
    if not isinstance(value, str):
        return True
    if not _RFC3339.match(value):
        return False
    datetime.fromisoformat(value.replace("z", "Z"))
    return True


def _is_uuid(value: str) -> bool:
    """jsonschema's ``uuid`` rule: whatever :class:`uuid.UUID` parses (braces, ``urn:``,
    extra hyphens…), as long as hyphens sit where the canonical form has them."""
    if _PLAIN_UUID(value):
        return True
    try:
        UUID(value)
    except ValueError:
        return False
    return all(value[position] == "-" for position in (8, 13, 18, 23))


def date_time_conforms(value: str) -> bool:
    """:func:`is_date_time` as a plain answer, the way jsonschema's checker reads it."""
    try:
        return is_date_time(value)
    except ValueError:
        return False


def _line_number(value: object) -> bool:
    # JSON Schema "integer" admits 1.0 and rejects booleans (bool is an int in Python).
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 1
    return isinstance(value, float) and value.is_integer() and value >= 1


def _contributor(value: object) -> bool:
    if not isinstance(value, dict) or "type" not in value:
        return False
    kind = value["type"]
    if not isinstance(kind, str) or kind not in _CONTRIBUTOR_TYPES:
        return False
    model = value.get("model_id", "")
    return isinstance(model, str) and len(model) <= 250


def _range(value: object) -> bool:
    if not isinstance(value, dict) or "start_line" not in value or "end_line" not in value:
        return False
    if not (_line_number(value["start_line"]) and _line_number(value["end_line"])):
        return False
    if not isinstance(value.get("content_hash", ""), str):
        return False
    return "contributor" not in value or _contributor(value["contributor"])


def _related(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and isinstance(value.get("url"), str)
    )


def _conversation(value: object) -> bool:
    if not isinstance(value, dict) or "ranges" not in value:
        return False
    ranges = value["ranges"]
    if not isinstance(ranges, list) or not all(_range(item) for item in ranges):
        return False
    if not isinstance(value.get("url", ""), str):
        return False
    if "contributor" in value and not _contributor(value["contributor"]):
        return False
    if "related" not in value:
        return True
    related = value["related"]
    return isinstance(related, list) and all(_related(item) for item in related)


def _file(value: object) -> bool:
    if not isinstance(value, dict) or "path" not in value or "conversations" not in value:
        return False
    conversations = value["conversations"]
    return (
        isinstance(value["path"], str)
        and isinstance(conversations, list)
        and all(_conversation(item) for item in conversations)
    )


def conforms(record: dict[str, Any]) -> bool:
    """Whether ``record`` validates against the bundled schema (see the module docstring)."""
    if not record.keys() >= _REQUIRED:
        return False
    files = record["files"]
    return (
        _head(record["version"], record["id"], record["timestamp"])
        and isinstance(files, list)
        and all(_file(item) for item in files)
        and ("vcs" not in record or _vcs(record["vcs"]))
        and ("tool" not in record or _tool(record["tool"]))
        and isinstance(record.get("metadata", {}), dict)
    )


def _head(version: object, ident: object, timestamp: object) -> bool:
    return (
        isinstance(version, str)
        and _VERSION(version) is not None
        and isinstance(ident, str)
        and _is_uuid(ident)
        and isinstance(timestamp, str)
        and date_time_conforms(timestamp)
    )


def _vcs(value: object) -> bool:
    if not isinstance(value, dict) or "type" not in value or "revision" not in value:
        return False
    kind = value["type"]
    return isinstance(kind, str) and kind in _VCS_TYPES and isinstance(value["revision"], str)


def _tool(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("name", ""), str)
        and isinstance(value.get("version", ""), str)
    )
