"""How each kind of rule is approved, asked of the rule (what
``policy.approvals.approval_for`` / ``recorded_approval`` answer for every code)."""

from __future__ import annotations

from intent_ls.policy.approvals import Approval, ApprovalSet, approval_for, recorded_approval
from intent_ls.policy.rules import rule_of
from intent_ls.policy.rules.rule import Approvable

P = "src/a.py"


def approvals(code: str, *hashes: str) -> ApprovalSet:
    return ApprovalSet(Approval(code, P, 1, 1, h) for h in hashes)


def test_each_rule_says_how_it_is_approved() -> None:
    kinds = {
        code: rule_of(code).approval
        for code in ("no-active-intent", "out-of-scope", "stale-file", "destructive-edit")
    }
    assert kinds == {
        "no-active-intent": Approvable.NEVER,
        "out-of-scope": Approvable.RANGE,
        "stale-file": Approvable.NAMED,
        "destructive-edit": Approvable.NAMED_OR_PATH,
    }


def test_named_content_is_approved_by_exactly_that_content() -> None:
    known = approvals("stale-file", "disk")
    assert approval_for("stale-file", P, "disk", known) is not None
    assert approval_for("stale-file", P, "other", known) is None
    assert approval_for("stale-file", P, None, known) is None  # names nothing: never


def test_a_destructive_edit_that_names_nothing_takes_any_approval_of_the_path() -> None:
    known = approvals("destructive-edit", "whatever")
    assert approval_for("destructive-edit", P, None, known) is not None
    assert approval_for("destructive-edit", P, "other", known) is None


def test_scope_verdicts_are_never_approved_before_the_write() -> None:
    assert approval_for("out-of-scope", P, None, approvals("out-of-scope", "x")) is None
    assert approval_for("no-active-intent", P, "x", approvals("no-active-intent", "x")) is None


def test_a_recorded_range_verdict_needs_every_range_or_the_whole_save() -> None:
    known = approvals("out-of-scope", "r1")
    assert recorded_approval("out-of-scope", P, known, saved="s", ranges=["r1", "r2"]) is None
    assert recorded_approval("out-of-scope", P, known, saved="s", lines="r1") is not None
    both = approvals("out-of-scope", "r1", "r2")
    assert recorded_approval("out-of-scope", P, both, saved="s", ranges=["r1", "r2"])
    whole = approvals("out-of-scope", "s")
    assert recorded_approval("out-of-scope", P, whole, saved="s", ranges=["r1"]) is not None


def test_a_recorded_content_verdict_takes_the_whole_save_or_its_named_key() -> None:
    assert recorded_approval("stale-file", P, approvals("stale-file", "s"), saved="s")
    assert recorded_approval("stale-file", P, approvals("stale-file", "k"), saved="s", named="k")
    assert not recorded_approval("stale-file", P, approvals("stale-file", "k"), saved="s")


def test_rules_approved_elsewhere_are_never_approved_here() -> None:
    """Commands (the shell gate), the spec (``check``), and what nobody approves."""
    for code in ("destructive-command", "scope-widened", "governance-error", "protected-path"):
        known = approvals(code, "k")
        assert approval_for(code, P, "k", known) is None
        assert recorded_approval(code, P, known, saved="k", named="k") is None
