"""Optimistic locking: when a buffer is stale, and who changed the file underneath."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from intent_ls.common.hashing import text_hash
from intent_ls.ledger.index import TraceIndex
from intent_ls.ledger.records import build_mutation_record
from intent_ls.ledger.store import LEDGER_RELPATH, Ledger
from intent_ls.ledger.writers import changer_from_index, changer_from_records
from intent_ls.policy.approvals import Approval, ApprovalSet, Contributor
from intent_ls.policy.rules.stale_file import check_save
from intent_ls.policy.stale import ABSENT_HASH, Changer, DiskState, check_stale
from intent_ls.policy.verdicts import STALE_FILE

REL = "src/auth/jwt.py"
OPENED = "def f():\n    return 1\n"
THEIRS = "def f():\n    return 2\n"
MINE = "def f():\n    return 3\n"


def disk(current: str | None, baseline: str | None = OPENED, **kw: Any) -> DiskState:
    return DiskState(
        text_hash(baseline) if baseline is not None else None,
        text_hash(current) if current is not None else None,
        **kw,
    )


@pytest.mark.parametrize(
    "on_disk,buffer,stale",
    [
        (OPENED, OPENED, False),  # nothing happened
        (OPENED, MINE, False),  # only I edited: my save is safe
        (THEIRS, THEIRS, False),  # they wrote exactly what I have
        (THEIRS, OPENED, True),  # they changed it; my untouched buffer would revert them
        (THEIRS, MINE, True),  # both changed it
        (None, MINE, True),  # deleted on disk while I edit
    ],
)
def test_decision_table(on_disk: str | None, buffer: str, stale: bool) -> None:
    found = check_stale(REL, disk(on_disk), buffer)
    assert (found is not None) == stale
    if found is not None:
        assert found.baseline_hash == text_hash(OPENED)
        assert found.disk_hash == (text_hash(on_disk) if on_disk is not None else None)
        assert found.buffer_hash == text_hash(buffer)


def test_line_endings_and_final_newline_do_not_make_a_buffer_stale() -> None:
    assert check_stale(REL, disk(THEIRS), THEIRS.replace("\n", "\r\n").rstrip("\n\r")) is None


def test_a_file_created_under_a_new_buffer() -> None:
    assert check_stale(REL, disk(None, baseline=None), MINE) is None
    found = check_stale(REL, disk(THEIRS, baseline=None), MINE)
    assert found is not None and found.baseline_hash is None


def test_message_and_details() -> None:
    found = check_stale(REL, disk(THEIRS), MINE)
    assert found is not None
    assert found.message == "src/auth/jwt.py changed on disk since you opened it"
    assert found.to_json() == {
        "path": REL,
        "baseline_hash": text_hash(OPENED),
        "disk_hash": text_hash(THEIRS),
        "buffer_hash": text_hash(MINE),
        "changed_by": None,
    }
    assert found.buffer_lines == 2
    changer = Changer("ai", "anthropic/claude-sonnet-4", "INT-002", "2026-11-21T10:00:00.123456Z")
    found = check_stale(REL, disk(THEIRS, changed_by=changer, since="saved"), MINE)
    assert found is not None
    assert found.message == (
        "src/auth/jwt.py changed on disk (by ai anthropic/claude-sonnet-4 for INT-002 "
        "at 2026-11-21T10:00:00Z) since you saved it"
    )
    assert found.to_json()["changed_by"]["timestamp"] == "2026-11-21T10:00:00.123456Z"
    gone = check_stale(REL, disk(None), MINE)
    assert (
        gone is not None
        and gone.message == "src/auth/jwt.py was deleted on disk since you opened it"
    )
    assert gone.approval_hash == ABSENT_HASH


def test_changer_description_without_model_or_intent() -> None:
    assert Changer("human", None, None, None).describe() == "by human"
    assert Changer(None, None, "INT-1", None).describe() == "by unknown for INT-1"


def test_save_check_asks_unless_approved() -> None:
    assert not check_save(REL, disk(OPENED), MINE).needs_confirmation
    unapproved = check_save(REL, disk(THEIRS), MINE)
    assert unapproved.needs_confirmation and unapproved.stale is not None
    keep = Approval(STALE_FILE, REL, 1, 2, text_hash(THEIRS))
    approved = check_save(REL, disk(THEIRS), MINE, ApprovalSet([keep]))
    assert approved.approval == keep and not approved.needs_confirmation
    assert approved.stale is not None  # the record still carries the verdict and hashes
    # an approval against other disk content, another path or another code does not count
    others = ApprovalSet(
        [
            Approval(STALE_FILE, REL, 1, 2, text_hash(OPENED)),
            Approval(STALE_FILE, "other.py", 1, 2, text_hash(THEIRS)),
            Approval("destructive-edit", REL, 1, 2, text_hash(THEIRS)),
        ]
    )
    assert check_save(REL, disk(THEIRS), MINE, others).needs_confirmation


# -- who changed it -------------------------------------------------------------------


def _record(root: Path, old: str, new: str, intent: str, who: Contributor, minute: int) -> dict:
    record = build_mutation_record(
        root,
        REL,
        old,
        new,
        intent_id=intent,
        session_id="s",
        contributor=who,
        clock=lambda: datetime(2026, 11, 21, 10, minute, 0, 42, tzinfo=UTC),
        revision=None,
    )
    assert record is not None
    return record


def _history(root: Path) -> list[dict]:
    claude = Contributor("ai", "anthropic/claude-sonnet-4")
    return [
        _record(root, OPENED, THEIRS, "INT-001", Contributor("human"), 0),
        _record(root, THEIRS, OPENED, "INT-001", Contributor("human"), 1),
        _record(root, OPENED, THEIRS, "INT-002", claude, 2),  # the newest write of THEIRS
    ]


def test_changer_from_records(tmp_path: Path) -> None:
    records = _history(tmp_path)
    changer = changer_from_records(records, REL, text_hash(THEIRS))
    assert changer == Changer(
        "ai", "anthropic/claude-sonnet-4", "INT-002", "2026-11-21T10:02:00.000042Z"
    )
    assert changer_from_records(records, REL, text_hash(MINE)) is None
    assert changer_from_records(records, "other.py", text_hash(THEIRS)) is None
    assert changer_from_records([{"foreign": True}, {"metadata": 3}], REL, "x") is None


def test_changer_from_index(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / LEDGER_RELPATH, fsync=False)
    for record in _history(tmp_path):
        ledger.append(record)
    index = TraceIndex.for_workspace(tmp_path)
    try:
        changer = changer_from_index(index, REL, text_hash(THEIRS))
        assert changer is not None
        assert (changer.contributor, changer.model_id, changer.intent_id) == (
            "ai",
            "anthropic/claude-sonnet-4",
            "INT-002",
        )
        assert changer_from_index(index, REL, text_hash(OPENED)) == Changer(
            "human", None, "INT-001", "2026-11-21T10:01:00.000042Z"
        )
        assert changer_from_index(index, REL, text_hash(MINE)) is None
        assert changer_from_index(index, REL, text_hash(OPENED), limit=1) is None
    finally:
        index.close()
