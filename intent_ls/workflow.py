"""One write, judged and recorded the same way by every front door.

The editor, the agent hooks and ``intent-ls record``/``approve`` all need the same two
steps, with plain inputs and no protocol types:

1. :func:`judge_path`, :func:`judge_write` or :func:`judge_file_operation` (a delete or
   rename) — the policy's verdicts for one path or change, *all* of them (approved ones
   too, because the record must carry what was present at save time), with the human
   approvals that let some of them through. Every live judgement of every door comes
   through here; a door that has no approvals at hand passes its root, and the
   ledger's approvals are read in one place (:func:`_with_recorded`) once a verdict an
   approval could lift is open. The :class:`WriteDecision` says what still
   blocks; each front door decides what blocking means for it (an agent is refused, an
   editor keeps its governance baseline and asks).
2. :func:`build_record` / :func:`record` — the Agent Trace record of the change with
   those verdicts and approvals, appended through the ledger's public append so the
   chain rules stay in one place.

:func:`record_write` is the two steps in one, what a write does whoever makes it: the
agent hooks and ``intent-ls record`` call it, the editor calls :func:`build_write` (the
same sequence without the append, which the editor retries on its own) with what only
it has: live syntax trees, the verdicts its analysis already found, the journal's id and
time; the write's inputs are one :class:`Write`. :func:`record_approval` is the one way
a door records a human's approval.

``policy.evaluate`` runs once per judgement here; what a verdict means (does it block an
editor, is it about the scope, can an approval lift it) is asked of its rule.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from intent_ls.policy.approvals import Approval, ApprovalSet, Contributor, verdict_approval
from intent_ls.policy.judge import Change, FileOperation, PolicyConfig, Verdict, evaluate
from intent_ls.policy.session import Session
from intent_ls.scope.index import ScopeIndex

if TYPE_CHECKING:  # the record's side loads when a record is built: judging needs none of it
    from intent_ls.ledger.records import Clock, IdFactory, RecordedVerdict
    from intent_ls.ledger.store import Ledger
    from intent_ls.policy.stale import DiskState
    from intent_ls.syntax.document import DocumentSyntax


class WriteDecision(NamedTuple):
    """The verdicts of one write and the approvals that cover some of them."""

    rel: str
    #: Every verdict present, approved or not, in the policy's order.
    verdicts: tuple[Verdict, ...] = ()
    #: The recorded approvals matching approvable verdicts, in verdict order.
    approvals: tuple[Approval, ...] = ()
    #: The verdicts no approval covers.
    open: tuple[Verdict, ...] = ()

    def blocking(self, *, stale_blocks: bool = True) -> tuple[Verdict, ...]:
        """The open verdicts that refuse the write. An editor passes
        ``stale_blocks=False``: the human saw the conflict and is asked after the save;
        an agent must re-read the file instead."""
        return tuple(v for v in self.open if v.blocking and (stale_blocks or v.rule.blocks_editor))

    @property
    def allowed(self) -> bool:
        return not self.blocking()

    @property
    def scope_allowed(self) -> bool:
        return not any(v.rule.selects_intent for v in self.open)

    @property
    def liftable(self) -> bool:
        """Whether an open verdict is one a recorded approval could lift."""
        return any(v.rule.approved_live for v in self.open)

    def recorded(self) -> list[RecordedVerdict]:
        return recorded(self.verdicts)


def recorded(verdicts: Iterable[Verdict]) -> list[RecordedVerdict]:
    """Verdicts as the ledger keeps them (a plain copy that outlives the policy types)."""
    from intent_ls.ledger.records import RecordedVerdict

    return [RecordedVerdict(v.code, v.message, dict(v.details)) for v in verdicts]


def decide(
    rel: str, verdicts: Iterable[Verdict], approvals: ApprovalSet | Iterable[Approval] = ()
) -> WriteDecision:
    """Splits ``verdicts`` into approved (with their approval) and open ones, by the one
    rule of :mod:`intent_ls.policy.approvals`."""
    known = ApprovalSet.of(approvals)
    found: list[Approval] = []
    still: list[Verdict] = []
    listed = tuple(verdicts)
    for verdict in listed:
        hit = verdict_approval(verdict, rel, known)
        if hit is None:
            still.append(verdict)
        elif hit not in found:
            found.append(hit)
    return WriteDecision(rel, listed, tuple(found), tuple(still))


def judge_write(
    session: Session,
    scope: ScopeIndex,
    rel: str,
    old_text: str,
    new_text: str,
    *,
    language: str | None = None,
    disk: DiskState | None = None,
    config: PolicyConfig | None = None,
    approvals: ApprovalSet | Iterable[Approval] = (),
    old_syntax: DocumentSyntax | None = None,
    new_syntax: DocumentSyntax | None = None,
    path_rules: bool = True,
    root: Path | None = None,
) -> WriteDecision:
    """Judges writing ``new_text`` over ``old_text`` (the governance baseline: what the
    front door last saw) at the workspace-relative ``rel``. ``disk`` enables the
    ``stale-file`` check; the syntax trees, when the front door keeps live ones, spare
    a reparse. ``path_rules=False`` judges the change alone (the rules that judge a
    change), for a front door that judged the path with :func:`judge_path` already.
    ``root`` reads the ledger's approvals when the door has none (:func:`_with_recorded`)."""
    change = Change(old_text, new_text, language, disk, old_syntax, new_syntax)
    verdicts = evaluate(session, scope, rel, change, config=config, path_rules=path_rules)
    return _with_recorded(root, decide(rel, verdicts, approvals))


def judge_path(session: Session, scope: ScopeIndex, rel: str) -> WriteDecision:
    """The path rules alone (``no-active-intent``, ``out-of-scope``): what a front door
    decides at once, before it has the change (the editor, on every keystroke)."""
    return decide(rel, evaluate(session, scope, rel))


def _with_recorded(root: Path | None, decision: WriteDecision) -> WriteDecision:
    """The one place a decision is made again with the approvals the ledger of ``root``
    holds: only when the door has none of its own (``root`` given) and an open verdict
    is one an approval could lift, so a write that nothing blocks reads no ledger."""
    if root is None or not decision.liftable:
        return decision
    return decide(decision.rel, decision.verdicts, recorded_approvals(root, decision.rel))


def judge_file_operation(
    session: Session,
    scope: ScopeIndex,
    rel: str,
    new_rel: str | None = None,
    *,
    text: str | None = None,
    language: str | None = None,
    config: PolicyConfig | None = None,
    approvals: ApprovalSet | Iterable[Approval] = (),
    root: Path | None = None,
) -> WriteDecision:
    """Judges deleting ``rel`` (``new_rel`` None) or moving it to ``new_rel``;
    ``root`` as for :func:`judge_write`."""
    operation = FileOperation(new_rel, text, language)
    verdicts = evaluate(session, scope, rel, operation, config=config)
    return _with_recorded(root, decide(rel, verdicts, approvals))


def build_record(
    root: Path,
    rel: str,
    old_text: str,
    new_text: str,
    decision: WriteDecision | None,
    *,
    intent_id: str | None,
    session_id: str | None,
    contributor: Contributor,
    extra_verdicts: Sequence[RecordedVerdict] = (),
    extra_approvals: Sequence[Approval] = (),
    language: str | None = None,
    syntax: DocumentSyntax | None = None,
    old_syntax: DocumentSyntax | None = None,
    clock: Clock | None = None,
    new_id: IdFactory = uuid.uuid4,
) -> dict[str, Any] | None:
    """The mutation record of a write: the decision's verdicts and approvals plus any the
    front door collected elsewhere (the editor's willSave re-check). None when the text
    did not change. ``clock``/``new_id`` fix the record's time and id (the editor takes
    both when the save arrives, so a journalled save replays to the same record)."""
    from intent_ls.ledger.records import build_mutation_record, utc_now

    verdicts = [*extra_verdicts, *(decision.recorded() if decision else ())]
    approvals = unique_approvals([*extra_approvals, *(decision.approvals if decision else ())])
    return build_mutation_record(
        root,
        rel,
        old_text,
        new_text,
        intent_id=intent_id,
        session_id=session_id,
        contributor=contributor,
        verdicts=verdicts,
        approvals=approvals,
        syntax=syntax,
        old_syntax=old_syntax,
        language=language,
        clock=clock or utc_now,
        new_id=new_id,
    )


def record(
    ledger: Ledger,
    root: Path,
    rel: str,
    old_text: str,
    new_text: str,
    decision: WriteDecision | None,
    **options: Any,
) -> dict[str, Any] | None:
    """Builds (:func:`build_record`, same options) and appends the record; returns it
    sealed, or None when nothing changed. An append failure propagates as ``OSError``:
    the caller decides whether to keep the record for a retry (the editor) or report it
    (the CLI, a hook)."""
    built = build_record(root, rel, old_text, new_text, decision, **options)
    return None if built is None else ledger.append(built)


class BuiltWrite(NamedTuple):
    """A write's decision and its record (None when the text did not change)."""

    decision: WriteDecision
    record: dict[str, Any] | None


class Trees(NamedTuple):
    """Live syntax trees a door keeps, so nothing is reparsed: of the new text, of the
    record's old side, and of the governance baseline the change is judged against."""

    new: DocumentSyntax | None = None
    old: DocumentSyntax | None = None
    baseline: DocumentSyntax | None = None


class Write(NamedTuple):
    """One write's inputs: what changes, who writes it, and what the door already has.

    ``baseline`` is what the change is judged against when it differs from the record's
    old side (the editor's governance baseline); ``judged`` the verdicts of the change
    when the front door has them already. ``approvals`` None reads the ledger's, and
    only when a verdict an approval could lift is open. ``extra_verdicts`` /
    ``extra_approvals`` are what the door collected elsewhere (the editor's willSave
    re-check); ``clock``/``new_id`` fix the record's time and id (the editor takes both
    when the save arrives, so a journalled save replays to the same record).
    """

    root: Path
    rel: str
    old_text: str
    new_text: str
    session: Session
    scope: ScopeIndex
    contributor: Contributor
    session_id: str | None = None
    language: str | None = None
    baseline: str | None = None
    judged: Sequence[Verdict] | None = None
    approvals: ApprovalSet | None = None
    config: PolicyConfig | None = None
    path_rules: bool = True
    extra_verdicts: Sequence[RecordedVerdict] = ()
    extra_approvals: Sequence[Approval] = ()
    trees: Trees = Trees()
    clock: Clock | None = None
    new_id: IdFactory = uuid.uuid4


def _judge(write: Write) -> WriteDecision:
    """The write's decision: the door's verdicts when it has them, else the policy's."""
    root = write.root if write.approvals is None else None
    if write.judged is not None:
        return _with_recorded(root, decide(write.rel, write.judged, write.approvals or ()))
    return judge_write(
        write.session,
        write.scope,
        write.rel,
        write.old_text if write.baseline is None else write.baseline,
        write.new_text,
        language=write.language,
        config=write.config,
        approvals=write.approvals or (),
        old_syntax=write.trees.baseline,
        new_syntax=write.trees.new,
        path_rules=write.path_rules,
        root=root,
    )


def build_write(write: Write) -> BuiltWrite:
    """Judge -> approvals -> build for one write."""
    decision = _judge(write)
    session = write.session
    record = build_record(
        write.root,
        write.rel,
        write.old_text,
        write.new_text,
        decision,
        intent_id=session.intent_id,
        session_id=session.id if write.session_id is None else write.session_id,
        contributor=write.contributor,
        extra_verdicts=write.extra_verdicts,
        extra_approvals=write.extra_approvals,
        language=write.language,
        syntax=write.trees.new,
        old_syntax=write.trees.old,
        clock=write.clock,
        new_id=write.new_id,
    )
    return BuiltWrite(decision, record)


def record_write(
    ledger: Ledger, root: Path, rel: str, old_text: str, new_text: str, **options: Any
) -> BuiltWrite:
    """:func:`build_write` of a :class:`Write` (``options`` are its other fields), then
    the append; the record returned is the sealed one. An append failure propagates as
    ``OSError``."""
    built = build_write(Write(root, rel, old_text, new_text, **options))
    if built.record is None:
        return built
    return BuiltWrite(built.decision, ledger.append(built.record))


def record_approval(
    ledger: Ledger,
    root: Path,
    approval: Approval,
    *,
    intent_id: str | None,
    session_id: str | None,
    verdict_message: str = "",
) -> dict[str, Any]:
    """Appends a human's approval as a record of its own; returns it sealed."""
    from intent_ls.ledger.records import build_approval_record

    record = build_approval_record(
        root,
        approval,
        intent_id=intent_id,
        session_id=session_id,
        verdict_message=verdict_message,
    )
    return ledger.append(record)


def recorded_approvals(root: Path, rel: str) -> ApprovalSet:
    """The approvals the ledger holds for ``rel``, through the shared trace index (so a
    long ledger is read incrementally), or the ledger itself when that index is cold.
    Only front doors without a live index call this, and only once a verdict that an
    approval could lift is present."""
    from intent_ls.ledger.lookup import path_records
    from intent_ls.ledger.records import approvals_from_records

    return ApprovalSet(approvals_from_records(path_records(root, rel)))


def unique_approvals(approvals: Iterable[Approval]) -> list[Approval]:
    seen: dict[tuple[str, str, str], Approval] = {}
    for a in approvals:
        seen.setdefault((a.verdict_code, a.path, a.content_hash), a)
    return list(seen.values())
