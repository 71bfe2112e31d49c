"""policy.evaluate with a change: stale and destructive verdicts next to the scope ones,
and human approvals taking them away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from intent_ls.common.hashing import text_hash
from intent_ls.ledger.records import approvals_from_records, build_approval_record
from intent_ls.policy.approvals import Approval, ApprovalSet, Contributor
from intent_ls.policy.destructive import DEFINITION_DELETED, FILE_DELETED, FILE_RENAMED, Finding
from intent_ls.policy.judge import Change, FileOperation, PolicyConfig, evaluate
from intent_ls.policy.session import Session
from intent_ls.policy.stale import DiskState, StaleFile
from intent_ls.policy.verdicts import DESTRUCTIVE_EDIT, NO_ACTIVE_INTENT, OUT_OF_SCOPE, STALE_FILE
from intent_ls.scope.index import ScopeIndex
from intent_ls.spec.model import Severity
from intent_ls.workspace.discover import Workspace

JWT = "src/auth/jwt.py"
OLD = (
    "import os\n\n\n"
    "def verify_token(token):\n"
    "    if not token:\n"
    "        raise ValueError('empty')\n"
    "    return token.count('.') == 2\n\n\n"
    "def refresh(token):\n"
    "    return token\n"
)
NEW = "import os\n\n\ndef refresh(token):\n    return token\n"


@pytest.fixture
def scope(workspace: Path) -> ScopeIndex:
    return Workspace(workspace).scope()


@pytest.fixture
def session(workspace: Path) -> Session:
    session = Session()
    session.select(Workspace(workspace).spec(), "INT-001")
    return session


def codes(verdicts: tuple) -> list[str]:
    return [v.code for v in verdicts]


def test_deleting_a_function_in_scope_is_one_destructive_verdict(
    session: Session, scope: ScopeIndex
) -> None:
    (verdict,) = evaluate(session, scope, JWT, Change(OLD, NEW))
    assert verdict.code == DESTRUCTIVE_EDIT
    assert verdict.severity is Severity.ERROR
    assert verdict.blocking
    assert verdict.message == "deletes function `verify_token` (lines 4–7)"
    assert isinstance(verdict.finding, Finding)
    details = verdict.details
    assert details["kind"] == DEFINITION_DELETED
    assert details["range"] == {"start_line": 4, "end_line": 4}
    assert [n["name"] for n in details["nodes"]] == ["verify_token"]
    assert details["approval"] == {
        "verdict_code": DESTRUCTIVE_EDIT,
        "path": JWT,
        "start_line": 4,
        "end_line": 7,
        "content_hash": details["nodes"][0]["content_hash"],
    }
    json.dumps(verdict.to_dict())  # agents get plain JSON
    assert not session.authorize((verdict,))


def test_no_change_keeps_the_path_only_behaviour(session: Session, scope: ScopeIndex) -> None:
    assert evaluate(session, scope, JWT) == ()
    assert evaluate(session, scope, JWT, Change(OLD, OLD)) == ()
    assert evaluate(session, scope, JWT, Change(OLD, OLD + "x = 1\n")) == ()


def test_all_rules_at_once_in_order(scope: ScopeIndex) -> None:
    disk = DiskState(text_hash(OLD), text_hash(OLD + "# theirs\n"))
    verdicts = evaluate(Session(), scope, JWT, Change(OLD, NEW, disk=disk))
    assert codes(verdicts) == [NO_ACTIVE_INTENT, STALE_FILE, DESTRUCTIVE_EDIT]
    stale = verdicts[1]
    assert stale.severity is Severity.WARNING and stale.blocking
    assert isinstance(stale.finding, StaleFile)
    assert stale.message == f"{JWT} changed on disk since you opened it"
    assert stale.details["disk_hash"] == text_hash(OLD + "# theirs\n")
    assert stale.details["approval"]["content_hash"] == text_hash(OLD + "# theirs\n")
    assert stale.details["approval"]["start_line"] == 1
    assert stale.details["approval"]["end_line"] == 5


def test_out_of_scope_and_destructive(session: Session, scope: ScopeIndex) -> None:
    verdicts = evaluate(session, scope, "src/api/routes.py", Change(OLD, ""))
    assert codes(verdicts) == [OUT_OF_SCOPE, DESTRUCTIVE_EDIT]
    assert verdicts[1].message == "empties the file (11 lines)"


def test_ignored_paths_get_no_verdict_even_when_destroyed(
    session: Session, scope: ScopeIndex
) -> None:
    assert evaluate(session, scope, "build/bundle.js", Change(OLD, "")) == ()
    assert evaluate(session, scope, "build/bundle.js", FileOperation()) == ()


def test_an_approved_destruction_yields_no_verdict(session: Session, scope: ScopeIndex) -> None:
    (verdict,) = evaluate(session, scope, JWT, Change(OLD, NEW))
    approval = Approval(**verdict.details["approval"], approver=Contributor("human"))
    assert evaluate(session, scope, JWT, Change(OLD, NEW), approvals=[approval]) == ()
    # it covers that definition only: deleting another one still needs its own
    other = NEW.replace("def refresh(token):\n    return token\n", "")
    (left,) = evaluate(session, scope, JWT, Change(OLD, other), approvals=[approval])
    assert left.message == "deletes function `refresh` (lines 10–11)"
    # and for that path and code only
    moved = Approval(DESTRUCTIVE_EDIT, "src/auth/other.py", 4, 7, approval.content_hash)
    stale_code = Approval(STALE_FILE, JWT, 4, 7, approval.content_hash)
    assert codes(
        evaluate(session, scope, JWT, Change(OLD, NEW), approvals=[moved, stale_code])
    ) == [DESTRUCTIVE_EDIT]


def test_approvals_round_trip_through_ledger_records(
    workspace: Path, session: Session, scope: ScopeIndex
) -> None:
    (verdict,) = evaluate(session, scope, JWT, Change(OLD, NEW))
    approval = Approval(**verdict.details["approval"], reason="obsolete")
    record = build_approval_record(
        workspace, approval, intent_id="INT-001", session_id=session.id, revision=None
    )
    parsed = json.loads(json.dumps(record))
    recovered = approvals_from_records([{"not": "ours"}, parsed])
    assert recovered == [approval]
    assert evaluate(session, scope, JWT, Change(OLD, NEW), approvals=ApprovalSet(recovered)) == ()


def test_malformed_approvals_are_skipped() -> None:
    good = Approval(DESTRUCTIVE_EDIT, "a.py", 1, 2, "sha256:1")
    records = [
        {"metadata": {"intent_ls": {"approvals": [{"path": "a"}, "x", None, good.to_json()]}}},
        {"metadata": {"intent_ls": {"approvals": 7}}},
        {"metadata": "x"},
    ]
    assert approvals_from_records(records) == [good]


def test_an_approved_stale_buffer_yields_no_verdict(session: Session, scope: ScopeIndex) -> None:
    theirs = OLD + "# theirs\n"
    change = Change(OLD, OLD + "# mine\n", disk=DiskState(text_hash(OLD), text_hash(theirs)))
    (verdict,) = evaluate(session, scope, JWT, change)
    assert verdict.code == STALE_FILE
    keep = Approval(**verdict.details["approval"])
    assert evaluate(session, scope, JWT, change, approvals=[keep]) == ()
    # the disk changed again: the old "keep my version" does not cover the new content
    again = Change(change.old_text, change.new_text, disk=DiskState(text_hash(OLD), "sha256:0"))
    assert codes(evaluate(session, scope, JWT, again, approvals=[keep])) == [STALE_FILE]


def test_policy_config(session: Session, scope: ScopeIndex) -> None:
    body = "".join(f"x{n} = {n}\n" for n in range(10))
    shorter = "".join(f"x{n} = {n}\n" for n in range(4))
    assert evaluate(session, scope, "src/auth/values.py", Change(body, shorter)) == ()
    strict = PolicyConfig(max_deleted_lines=5)
    (verdict,) = evaluate(
        session, scope, "src/auth/values.py", Change(body, shorter), config=strict
    )
    assert verdict.message == "deletes 6 lines (5–10)"
    protected = PolicyConfig(protected_paths=("src/auth/keys/**",))
    change = Change("a\n", "b\n")
    assert evaluate(session, scope, "src/auth/keys/k.pem", change) == ()
    (verdict,) = evaluate(session, scope, "src/auth/keys/k.pem", change, config=protected)
    assert (
        verdict.message == "edits protected path `src/auth/keys/k.pem` (matches `src/auth/keys/**`)"
    )
    (verdict,) = evaluate(session, scope, "src/auth/migrations/1.sql", change)
    assert verdict.details["kind"] == "protected-path"


def test_file_deletion(session: Session, scope: ScopeIndex) -> None:
    (verdict,) = evaluate(session, scope, JWT, FileOperation(text=OLD))
    assert verdict.code == DESTRUCTIVE_EDIT
    assert verdict.details["kind"] == FILE_DELETED
    assert verdict.details["approval"]["content_hash"] == text_hash(OLD)
    approval = Approval(**verdict.details["approval"])
    assert evaluate(session, scope, JWT, FileOperation(text=OLD), approvals=[approval]) == ()
    # content unknown: no approval key offered, and any approval for the path covers it
    (blind,) = evaluate(session, scope, JWT, FileOperation())
    assert "approval" not in blind.details
    assert evaluate(session, scope, JWT, FileOperation(), approvals=[approval]) == ()


def test_renaming_out_of_scope(session: Session, scope: ScopeIndex) -> None:
    verdicts = evaluate(session, scope, JWT, FileOperation("src/api/jwt.py", text=OLD))
    assert codes(verdicts) == [OUT_OF_SCOPE, DESTRUCTIVE_EDIT]
    assert verdicts[0].details["path"] == "src/api/jwt.py"
    assert verdicts[1].details["kind"] == FILE_RENAMED
    assert verdicts[1].message == f"renames `{JWT}` to `src/api/jwt.py` (11 lines)"
    inside = evaluate(session, scope, JWT, FileOperation("src/auth/token.py", text=OLD))
    assert codes(inside) == [DESTRUCTIVE_EDIT]
