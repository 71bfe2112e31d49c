"""``trace verify``: every line parses, is canonical, validates against the bundled Agent
Trace schema, carries its own digest, and chains to the line before it.

The checks together catch a one-byte change anywhere: a change that still parses alters
either the canonical bytes (whitespace, key order), the record's own ``digest`` (any
value), or — for a change inside ``prev``/``digest`` themselves — the chain.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from intent_ls.hashing import bytes_hash
from intent_ls.ledger.records import METADATA_KEY
from intent_ls.ledger.store import GENESIS, canonical_bytes, record_digest

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


@attrs.frozen
class Problem:
    line: int  # 1-based
    reason: str


@attrs.frozen
class VerifyResult:
    records: int
    problem: Problem | None

    @property
    def ok(self) -> bool:
        return self.problem is None


@cache
def validator() -> Any:
    """Draft 2020-12 validator with ``uuid`` and ``date-time`` actually checked (jsonschema
    skips date-time unless an optional package is installed, so it is registered here)."""
    from jsonschema import Draft202012Validator, FormatChecker

    schema = json.loads(
        resources.files("intent_ls.ledger").joinpath("trace-record.schema.json").read_text("utf-8")
    )
    checker = FormatChecker()

    @checker.checks("date-time", raises=ValueError)
    def _date_time(value: object) -> bool:
        if not isinstance(value, str):
            return True
        if not _RFC3339.match(value):
            return False
        datetime.fromisoformat(value.replace("z", "Z"))
        return True

    return Draft202012Validator(schema, format_checker=checker)


def check_record(record: Any) -> str | None:
    """Why ``record`` is not a valid Agent Trace record, or None."""
    if not isinstance(record, dict):
        return "not a JSON object"
    error = next(iter(sorted(validator().iter_errors(record), key=lambda e: list(e.path))), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        return f"schema: {where}: {error.message}"
    if not str(record["timestamp"]).endswith("Z"):
        return "timestamp is not UTC (must end in Z)"
    return None


def verify_ledger(path: Path) -> VerifyResult:
    prev = GENESIS
    count = 0
    if not Path(path).exists():
        return VerifyResult(0, None)
    with Path(path).open("rb") as f:
        for number, raw in enumerate(f, start=1):
            reason = _check_line(raw, prev)
            if reason is not None:
                return VerifyResult(count, Problem(number, reason))
            prev = bytes_hash(raw[:-1])
            count += 1
    return VerifyResult(count, None)


def _check_line(raw: bytes, prev: str) -> str | None:
    if not raw.endswith(b"\n"):
        return "torn line: no terminating newline (an interrupted append?)"
    body = raw[:-1]
    try:
        record = json.loads(body)
    except ValueError as exc:
        return f"not valid JSON: {exc}"
    reason = check_record(record)
    if reason is not None:
        return reason
    if canonical_bytes(record) != body:
        return "not in canonical form (edited by hand?)"
    meta = record.get("metadata", {}).get(METADATA_KEY)
    if not isinstance(meta, dict):
        return f"metadata.{METADATA_KEY} missing"
    if meta.get("digest") != record_digest(record):
        return "record digest mismatch: the record was altered"
    if meta.get("prev") != prev:
        return "chain broken: prev does not match the previous line's hash"
    return None
