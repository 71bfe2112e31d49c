"""The governance rules. Every front door (editor, agent hook, CI gate) asks here.

``evaluate`` is the one entry point: given who is acting (the session), what governs
(spec + compiled scope), what is touched (a workspace-relative path) and, optionally,
how (a :class:`Change` of its text or a :class:`FileOperation`), it returns the verdicts
that apply. No verdicts means the mutation is allowed.

It walks the rule registry (:mod:`intent_ls.policy.rules`) in the rules' order and asks
each rule that judges anything: today ``no-active-intent`` and ``out-of-scope`` (the
path; a rename's target too), ``stale-file`` (a change that carries what its door read
of the disk) and ``destructive-edit`` (what a change, delete or rename destroys). A rule
added as a file under ``policy/rules/`` is asked the same way.

A human approval recorded in the ledger removes the verdict it matches, as the verdict's
rule keys it (:mod:`intent_ls.policy.approvals`).
"""

from __future__ import annotations

from collections.abc import Iterable

from intent_ls.policy.approvals import Approval, ApprovalSet, verdict_approval
from intent_ls.policy.change import Change, FileOperation, PolicyConfig
from intent_ls.policy.rules import REGISTRY
from intent_ls.policy.rules.rule import Subject, Verdict
from intent_ls.policy.session import Session
from intent_ls.scope.index import ScopeIndex

__all__ = ["Change", "FileOperation", "PolicyConfig", "Verdict", "evaluate", "judged"]


def judged(subject: Subject) -> list[Verdict]:
    """Every rule's verdicts for ``subject``, approved ones included, in the rules'
    order; the path rules only when ``subject.path_rules``."""
    return [
        verdict
        for rule in REGISTRY
        if rule.judge is not None and (subject.path_rules or not rule.path_rule)
        for verdict in rule.judge(subject)
    ]


def evaluate(
    session: Session,
    scope: ScopeIndex,
    rel_path: str,
    change: Change | FileOperation | None = None,
    *,
    config: PolicyConfig | None = None,
    approvals: ApprovalSet | Iterable[Approval] = (),
    path_rules: bool = True,
) -> tuple[Verdict, ...]:
    """Verdicts for mutating ``rel_path`` (a governed, workspace-relative POSIX path).

    Without ``change`` only the path rules apply. Verdicts that ``approvals`` cover
    (each rule keys its approvals: :func:`intent_ls.policy.approvals.approval_for`) are
    left out. ``path_rules=False`` leaves the path rules out, for a front door that
    judged the path already (the editor does so at once, and the change later off the
    loop).
    """
    if scope.is_ignored(rel_path):
        return ()
    approved = ApprovalSet.of(approvals)
    verdicts = judged(Subject(session, scope, rel_path, change, config, path_rules))
    return tuple(v for v in verdicts if verdict_approval(v, rel_path, approved) is None)
