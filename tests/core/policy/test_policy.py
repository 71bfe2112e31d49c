"""The policy's verdicts: codes, owners and the machine-readable details agents act on."""

from __future__ import annotations

from pathlib import Path

from intent_ls.policy.judge import evaluate
from intent_ls.policy.session import Session
from intent_ls.policy.verdicts import NO_ACTIVE_INTENT, OUT_OF_SCOPE
from intent_ls.workspace.discover import Workspace


def test_no_active_intent_names_owners(workspace: Path) -> None:
    scope = Workspace(workspace).scope()
    (verdict,) = evaluate(Session(), scope, "src/auth/jwt.py")
    assert verdict.code == NO_ACTIVE_INTENT
    assert verdict.owners == ("INT-001",)
    assert "INT-001 (JWT authentication migration, IN_PROGRESS)" in verdict.message
    assert verdict.to_dict()["details"]["selectable"] == ["INT-001"]


def test_in_scope_is_allowed(workspace: Path) -> None:
    ws = Workspace(workspace)
    session = Session()
    session.select(ws.spec(), "INT-001")
    assert evaluate(session, ws.scope(), "src/auth/jwt.py") == ()
    assert evaluate(session, ws.scope(), "tests/auth/test_jwt.py") == ()


def test_out_of_scope_lists_who_owns_it(workspace: Path) -> None:
    ws = Workspace(workspace)
    session = Session()
    session.select(ws.spec(), "INT-001")
    (verdict,) = evaluate(session, ws.scope(), "services/billing/main.go")
    assert verdict.code == OUT_OF_SCOPE
    assert verdict.owners == ("INT-003",)
    assert verdict.details["selectable"] == []  # INT-003 is a DRAFT
    assert verdict.to_dict() == {
        "code": "out-of-scope",
        "message": verdict.message,
        "details": verdict.details,
    }
    (unowned,) = evaluate(session, ws.scope(), "setup.cfg")
    assert "no intent owns it" in unowned.message


def test_ignored_paths_get_no_verdict(workspace: Path) -> None:
    assert evaluate(Session(), Workspace(workspace).scope(), "build/bundle.js") == ()
