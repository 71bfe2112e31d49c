"""Carried ranges and open verdicts: the ledger's view of a file's current lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.common.diff import LineSpan
from intent_ls.common.hashing import content_hash, text_hash
from intent_ls.ledger.attribution import Locator, carried_ranges, open_verdicts
from intent_ls.ledger.records import RecordedVerdict, build_approval_record, build_mutation_record
from intent_ls.policy.approvals import Approval, Contributor
from intent_ls.policy.destructive import classify_change
from intent_ls.policy.rules.destructive_edit import destructive_verdict
from intent_ls.policy.stale import DiskState, check_stale
from intent_ls.syntax.document import definitions

ROOT = Path("/ws")
REL = "src/app.py"
BASE = "".join(f"line {i}\n" for i in range(1, 11))


def save(old: str, new: str, *verdicts: RecordedVerdict, **kw: Any) -> dict[str, Any]:
    record = build_mutation_record(
        ROOT,
        REL,
        old,
        new,
        intent_id="INT-001",
        session_id="s",
        contributor=Contributor("human"),
        verdicts=verdicts,
        revision=None,
        **kw,
    )
    assert record is not None
    return record


OOS = RecordedVerdict("out-of-scope", "src/app.py is outside the scope of INT-001")


def test_ranges_are_found_where_they_were_and_after_moving() -> None:
    new = BASE.replace("line 3\n", "changed 3\nadded\n")
    record = save(BASE, new, OOS)
    lines = new.splitlines()
    [found] = carried_ranges([record], REL, lines)
    assert found.span == found.recorded == LineSpan(3, 4)
    moved = ["header", "header", *lines]
    [found] = carried_ranges([record], REL, moved)
    assert found.span == LineSpan(5, 6) and found.recorded == LineSpan(3, 4)
    assert carried_ranges([record], REL, BASE.splitlines()) == []
    assert carried_ranges([record], "other.py", lines) == []


def test_locator_prefers_the_nearest_copy_and_respects_its_budget() -> None:
    lines = ["x", "a", "x", "b", "x"]
    digest = content_hash(["x"])
    assert Locator(lines).find(4, 4, digest) == LineSpan(3, 3)
    assert Locator(lines, budget=2).find(4, 4, digest) is None  # 5 windows > budget


def test_scope_verdicts_stay_open_until_approved_reverted_or_covered() -> None:
    new = BASE.replace("line 3\n", "changed 3\n")
    record = save(BASE, new, OOS)
    [open_] = open_verdicts([record], REL, new)
    assert open_.code == "out-of-scope" and open_.span == LineSpan(3, 3)
    assert open_.approval == {
        "verdict_code": "out-of-scope",
        "path": REL,
        "start_line": 3,
        "end_line": 3,
        "content_hash": content_hash(["changed 3"]),
    }
    # approved (an approval record keyed on the range's content)
    approval = Approval("out-of-scope", REL, 3, 3, content_hash(["changed 3"]))
    assert open_verdicts([record], REL, new, approvals=[approval]) == []
    # reverted, or edited again
    assert open_verdicts([record], REL, BASE) == []
    # covered while an owning intent is active
    assert open_verdicts([record], REL, new, covered={"out-of-scope"}) == []
    # still open after lines were inserted above: it moves with its lines
    [moved] = open_verdicts([record], REL, "new\n" + new)
    assert moved.span == LineSpan(4, 4)


def test_approval_listed_by_the_record_itself() -> None:
    new = BASE.replace("line 3\n", "changed 3\n")
    approval = Approval("out-of-scope", REL, 3, 3, content_hash(["changed 3"]))
    record = save(BASE, new, OOS, approvals=[approval])
    assert open_verdicts([record], REL, new) == []


def destructive_record(old: str, new: str) -> tuple[dict[str, Any], RecordedVerdict]:
    [finding] = classify_change(REL, old, new, "python")
    verdict = destructive_verdict(finding)
    recorded = RecordedVerdict(verdict.code, verdict.message, verdict.details)
    return save(old, new, recorded), recorded


PY = "def keep():\n    return 1\n\n\ndef verify_token(t):\n    check(t)\n    return t\n"


def test_destructive_verdict_open_until_approved_or_restored() -> None:
    new = PY.replace("def verify_token(t):\n    check(t)\n    return t\n", "")
    record, verdict = destructive_record(PY, new)
    [open_] = open_verdicts([record], REL, new)
    assert open_.code == "destructive-edit"
    assert open_.message == "deletes function `verify_token` (lines 5–7)"
    key = verdict.details["approval"]["content_hash"]
    assert open_.approval["content_hash"] == key
    assert open_.approval["start_line"] == 5 and open_.approval["end_line"] == 7
    approval = Approval("destructive-edit", REL, 5, 7, key)
    assert open_verdicts([record], REL, new, approvals=[approval]) == []
    hashes = {n.content_hash for n in definitions(PY, "python")}
    assert open_verdicts([record], REL, PY, definition_hashes=hashes) == []
    # an approval record as the server writes it is read back by the policy helper
    approval_record = build_approval_record(
        ROOT, approval, intent_id="INT-001", session_id="s", revision=None
    )
    from intent_ls.ledger.records import approvals_from_records

    assert (
        open_verdicts(
            [record, approval_record], REL, new, approvals=approvals_from_records([approval_record])
        )
        == []
    )


def test_destructive_anchor_is_exact_while_the_file_is_as_saved() -> None:
    old = "".join(f"x{i} = {i}\n" for i in range(40))
    new = old.replace("".join(f"x{i} = {i}\n" for i in range(10, 35)), "")
    record, _ = destructive_record(old, new)
    [open_] = open_verdicts([record], REL, new)
    assert open_.message.startswith("deletes 25 lines")
    assert open_.span == LineSpan(11, 11)
    # the deleted block is back somewhere: reverted
    assert open_verdicts([record], REL, old) == []


def test_stale_overwrite_open_until_approved_or_their_version_is_back() -> None:
    theirs = BASE.replace("line 1\n", "theirs\n")
    mine = BASE.replace("line 9\n", "mine\n")
    stale = check_stale(REL, DiskState(text_hash(BASE), text_hash(theirs)), mine)
    assert stale is not None
    from intent_ls.policy.rules.stale_file import stale_verdict

    verdict = stale_verdict(stale)
    record = save(theirs, mine, RecordedVerdict(verdict.code, verdict.message, verdict.details))
    [open_] = open_verdicts([record], REL, mine)
    assert open_.code == "stale-file" and open_.span == LineSpan(1, 1)
    assert open_.approval["content_hash"] == text_hash(theirs)
    keep = Approval("stale-file", REL, 1, 10, text_hash(theirs))
    assert open_verdicts([record], REL, mine, approvals=[keep]) == []
    assert open_verdicts([record], REL, theirs) == []


def test_newest_record_wins_and_approval_records_are_skipped() -> None:
    first = BASE.replace("line 3\n", "changed 3\n")
    one = save(BASE, first, OOS)
    two = save(first, first.replace("line 8\n", "changed 8\n"), OOS)
    text = first.replace("line 8\n", "changed 8\n")
    found = open_verdicts([one, two], REL, text)
    assert [(v.span.start, v.record_id) for v in found] == [(3, one["id"]), (8, two["id"])]


def test_recorded_verdicts_take_only_the_approval_that_names_them() -> None:
    """The recorded-verdict rule of policy/approvals.py, as the editor applies it (the
    check tests apply the same cases to ``intent-ls check``)."""
    new = BASE.replace("line 3\n", "changed 3\n").replace("line 8\n", "changed 8\n")
    scope = save(BASE, new, OOS)
    three = Approval("out-of-scope", REL, 3, 3, content_hash(["changed 3"]))
    # one range's approval approves those lines only
    [left] = open_verdicts([scope], REL, new, approvals=[three])
    assert left.span == LineSpan(8, 8)
    # the whole-file key (`intent-ls approve CODE PATH`) approves all the save did
    whole = Approval("out-of-scope", REL, 1, 10, text_hash(new))
    assert open_verdicts([scope], REL, new, approvals=[whole]) == []
    # ... and no later content: an approval of this text does not cover the next save
    later = new.replace("line 5\n", "changed 5\n")
    [after] = open_verdicts([scope, save(new, later, OOS)], REL, later, approvals=[whole])
    assert after.span == LineSpan(5, 5)
    # an approval the record lists counts by its key, like any other
    foreign = Approval("out-of-scope", REL, 3, 3, content_hash(["other"]))
    listed = save(BASE, new, OOS, approvals=[foreign])
    assert len(open_verdicts([listed], REL, new)) == 2

    gone = PY.replace("def verify_token(t):\n    check(t)\n    return t\n", "x = 1\n")
    record, _ = destructive_record(PY, gone)
    # the lines the save wrote say nothing about what it destroyed
    written = Approval("destructive-edit", REL, 5, 5, content_hash(["x = 1"]))
    assert [v.code for v in open_verdicts([record], REL, gone, approvals=[written])] == [
        "destructive-edit"
    ]
    saved = Approval("destructive-edit", REL, 1, 5, text_hash(gone))
    assert open_verdicts([record], REL, gone, approvals=[saved]) == []


def test_no_active_intent_is_never_approved() -> None:
    new = BASE.replace("line 3\n", "changed 3\n")
    verdict = RecordedVerdict("no-active-intent", "No active intent")
    record = save(BASE, new, verdict)
    approval = Approval("no-active-intent", REL, 3, 3, content_hash(["changed 3"]))
    [still] = open_verdicts([record], REL, new, approvals=[approval])
    assert still.code == "no-active-intent"
