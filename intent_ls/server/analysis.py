"""The full analysis of one document version: a pure job for the worker thread.

:func:`compute` brings the syntax tree up to the text, then makes one
``workflow.judge_write`` of the change (baseline → buffer, the disk state, both trees),
which yields the verdicts of the rules that judge a change (``stale-file``,
``destructive-edit``), and :func:`~intent_ls.ledger.attribution.open_verdicts`,
which finds the verdicts of earlier saves that are still unresolved. Everything it needs
is captured in :class:`Inputs` on the event loop; the :class:`Live` result is only used
for the document version it was computed for (:mod:`intent_ls.server.analyzer`
schedules, renders and publishes it).
"""

from __future__ import annotations

import attrs

from intent_ls import workflow
from intent_ls.ledger.attribution import OpenVerdict, open_verdicts
from intent_ls.policy.approvals import ApprovalSet, verdict_approval
from intent_ls.policy.judge import PolicyConfig, Verdict
from intent_ls.policy.rules import rule_of
from intent_ls.policy.rules.rule import Anchor
from intent_ls.policy.session import Session
from intent_ls.policy.stale import DiskState
from intent_ls.scope.index import ScopeIndex
from intent_ls.server.trace import History
from intent_ls.server.trees import Batch, LiveTree, Snapshot
from intent_ls.syntax.document import DocumentSyntax


@attrs.frozen
class Live:
    """The analysis of one document version."""

    version: int | None
    text: str
    #: The verdicts of the rules that judge a change, approved ones included.
    verdicts: tuple[Verdict, ...]
    approvals: ApprovalSet = attrs.field(eq=False)
    open: tuple[OpenVerdict, ...] = ()
    #: Which governance baseline the verdicts are against (``doc.baseline_version``).
    baseline_version: int = 0

    def approved(self, verdict: Verdict) -> bool:
        return verdict_approval(verdict, "", self.approvals) is not None

    def unapproved(self, code: str | None = None) -> list[Verdict]:
        return [
            v for v in self.verdicts if not self.approved(v) and (code is None or v.code == code)
        ]


@attrs.frozen
class Inputs:
    rel: str
    text: str
    baseline: str | None
    language: str | None
    tree: LiveTree | None
    batch: Batch | None
    disk: DiskState | None
    session: Session
    scope: ScopeIndex
    config: PolicyConfig
    history: History
    covered: frozenset[str]
    version: int | None
    baseline_version: int


def compute(inputs: Inputs) -> Live:
    """Worker thread: trees up to date, then the policy and the ledger's open verdicts."""
    new_syntax = old_syntax = None
    tree = inputs.tree
    if tree is not None and inputs.batch is not None:
        new_syntax = tree.apply(inputs.batch, inputs.text)
        if inputs.baseline is not None:
            old_syntax = tree.tree_for(tree.governance, inputs.baseline)
            if old_syntax is None:
                if inputs.baseline == inputs.text:
                    tree.governance = tree.current(inputs.text)
                else:
                    parsed = DocumentSyntax.parse(inputs.baseline, tree.language)
                    tree.governance = Snapshot(inputs.baseline, parsed)
                old_syntax = tree.tree_for(tree.governance, inputs.baseline)
        new_syntax = new_syntax.copy()
    baseline = inputs.baseline if inputs.baseline is not None else inputs.text
    decision = workflow.judge_write(
        inputs.session,
        inputs.scope,
        inputs.rel,
        baseline,
        inputs.text,
        language=inputs.language,
        disk=inputs.disk,
        config=inputs.config,
        old_syntax=old_syntax,
        new_syntax=new_syntax,
        path_rules=False,  # the loop publishes the path's verdicts at once
    )
    approvals = ApprovalSet(inputs.history.approvals)
    hashes: frozenset[str] = frozenset()
    if new_syntax is not None and any(
        rule_of(str(v.get("code"))).anchor is Anchor.FINDING
        for r in inputs.history.gated
        for v in r.get("metadata", {}).get("intent_ls", {}).get("verdicts") or ()
    ):
        hashes = frozenset(n.content_hash for n in new_syntax.definitions())
    found = open_verdicts(
        inputs.history.gated,
        inputs.rel,
        inputs.text,
        approvals=approvals,
        covered=inputs.covered,
        definition_hashes=hashes,
    )
    return Live(
        inputs.version,
        inputs.text,
        decision.verdicts,
        approvals,
        tuple(found),
        inputs.baseline_version,
    )
