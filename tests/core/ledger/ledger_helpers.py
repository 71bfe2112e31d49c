"""Shared helpers for the ledger tests: the external schema and deterministic records."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from intent_ls.ledger.records import build_mutation_record
from intent_ls.policy.approvals import Contributor

REPO = Path(__file__).resolve().parents[3]
EXTERNAL_SCHEMA = REPO.parent / "shared" / "agent-trace" / "trace-record.schema.json"


def external_validator() -> Any:
    """The Agent Trace schema from ../shared (not our bundled copy): conformance is
    checked against the spec's own file. Skipped on a fresh clone without it."""
    if not EXTERNAL_SCHEMA.exists():
        pytest.skip(f"Agent Trace schema not found at {EXTERNAL_SCHEMA} (CI provides it)")
    from jsonschema import Draft202012Validator

    from intent_ls.ledger.verify import validator

    return Draft202012Validator(
        json.loads(EXTERNAL_SCHEMA.read_text()), format_checker=validator().format_checker
    )


def fixed_clock() -> datetime:
    return datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def counter_ids() -> Any:
    n = iter(range(1, 1_000_000))
    return lambda: uuid.UUID(int=next(n), version=4)


def mutation(root: Path, i: int, *, intent: str = "INT-001", path: str = "a.py") -> dict:
    record = build_mutation_record(
        root,
        path,
        f"def f():\n    return {i}\n",
        f"def f():\n    return {i + 1}\n",
        intent_id=intent,
        session_id="sess",
        contributor=Contributor("ai", "anthropic/claude-test"),
        revision=None,
    )
    assert record is not None
    return record


def created(root: Path, rel: str = "src/auth/jwt.py") -> dict[str, Any]:
    """A human's save creating ``rel`` as ``x = 1`` under INT-001 (built, not appended)."""
    record = build_mutation_record(
        root,
        rel,
        "",
        "x = 1\n",
        intent_id="INT-001",
        session_id="s1",
        contributor=Contributor("human"),
    )
    assert record is not None
    return record
