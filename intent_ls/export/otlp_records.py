"""What one ledger record becomes when sent as OpenTelemetry log records
(``docs/scale.md``, "OpenTelemetry log records over OTLP").

Plain values only: the OpenTelemetry SDK is imported by the sender alone, so this mapping
is tested (and the CLI stays importable) without the ``otlp`` extra.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import attrs

from intent_ls.ledger.records import intent_meta

#: OpenTelemetry's SeverityNumber values (the log data model): INFO and WARN.
INFO = 9
WARN = 13

AttributeValue = str | tuple[str, ...]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@attrs.frozen
class LogFields:
    """One log record: ``timestamp_ns`` is None when the record's time does not parse."""

    timestamp_ns: int | None
    severity_number: int
    severity_text: str
    body: str | None
    attributes: Mapping[str, AttributeValue]


def log_fields(line: bytes) -> list[LogFields]:
    """The log records of one verified ledger line (without its newline): one per file the
    record touched (``code.file.path`` tells them apart), one for a record without files
    (a merge record). The line is the body of the first only: a foreign record of many
    files must not multiply its bytes by their number (the others share its digest)."""
    record = json.loads(line)
    meta = intent_meta(record)
    verdicts = [v for v in _list(meta.get("verdicts")) if isinstance(v, dict)]
    common: dict[str, AttributeValue] = {}
    _put(common, "intent_ls.digest", meta.get("digest"))
    _put(common, "intent_ls.id", record.get("id"))
    _put(common, "intent_ls.intent_id", meta.get("intent_id"))
    _put(common, "intent_ls.kind", meta.get("kind"))
    _put(common, "intent_ls.mutation_class", meta.get("mutation_class"))
    _put(common, "intent_ls.session_id", meta.get("session_id"))
    vcs = record.get("vcs")
    _put(common, "vcs.ref.head.revision", vcs.get("revision") if isinstance(vcs, dict) else None)
    codes = tuple(v["code"] for v in verdicts if isinstance(v.get("code"), str))
    if codes:
        common["intent_ls.verdict_codes"] = codes
    severity, text = (WARN, "WARN") if verdicts else (INFO, "INFO")
    timestamp = _timestamp_ns(record.get("timestamp"))
    body = line.decode("utf-8")
    files = [f for f in _list(record.get("files")) if isinstance(f, dict)]
    out: list[LogFields] = []
    for file in files or [{}]:
        attributes = dict(common)
        _put(attributes, "code.file.path", file.get("path"))
        contributor = _contributor(file)
        kind = contributor.get("type")
        _put(attributes, "intent_ls.contributor.type", kind)
        if kind == "ai":
            _put(attributes, "gen_ai.request.model", contributor.get("model_id"))
        out.append(LogFields(timestamp, severity, text, None if out else body, attributes))
    return out


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _put(attributes: dict[str, AttributeValue], key: str, value: object) -> None:
    """Only strings: an attribute OTLP cannot carry (null, a nested object a foreign
    writer put there) is left out rather than sent as something else."""
    if isinstance(value, str):
        attributes[key] = value


def _contributor(file: dict[str, Any]) -> dict[str, Any]:
    conversations = _list(file.get("conversations"))
    first = conversations[0] if conversations and isinstance(conversations[0], dict) else {}
    contributor = first.get("contributor")
    return contributor if isinstance(contributor, dict) else {}


def _timestamp_ns(value: object) -> int | None:
    """RFC 3339 to nanoseconds since the epoch, exactly (no float on the way: the
    ledger's microseconds must survive)."""
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    since = when - _EPOCH
    return (since.days * 86_400 + since.seconds) * 1_000_000_000 + since.microseconds * 1_000
