"""One write, judged and recorded the same way by every front door.

The editor, the agent hooks and ``intent-ls record``/``approve`` all need the same two
steps, with plain inputs and no protocol types:

1. :func:`judge_write` (or :func:`judge_file_operation` for a delete or rename) — the
   policy's verdicts for one change, *all* of them (approved ones too, because the
   record must carry what was present at save time), with the human approvals from the
   ledger that let some of them through. The :class:`WriteDecision` says what still
   blocks; each front door decides what blocking means for it (an agent is refused, an
   editor keeps its governance baseline and asks).
2. :func:`build_record` / :func:`record` — the Agent Trace record of the change with
   those verdicts and approvals, appended through the ledger's public append so the
   chain rules stay in one place.

:func:`record_write` is the two steps in one, what a write does whoever makes it: the
agent hooks and ``intent-ls record`` call it, the editor calls :func:`build_write` (the
same sequence without the append, which the editor retries on its own) with what only
it has: live syntax trees, the verdicts its analysis already found, the journal's id and
time. :func:`record_approval` is the one way a door records a human's approval.

``policy.evaluate`` runs once per write here; nothing filters its result by code.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from intent_ls.policy.approvals import Approval, ApprovalSet, Contributor, verdict_approval
from intent_ls.policy.judge import Change, FileOperation, PolicyConfig, Verdict, evaluate
from intent_ls.policy.verdicts import DESTRUCTIVE_EDIT, SCOPE_CODES, STALE_FILE

if TYPE_CHECKING:  # the record's side loads when a record is built: judging needs none of it
    from intent_ls.ledger.records import Clock, IdFactory, RecordedVerdict
    from intent_ls.ledger.store import Ledger
    from intent_ls.policy.session import Session
    from intent_ls.policy.stale import DiskState
    from intent_ls.scope.index import ScopeIndex
    from intent_ls.syntax.document import DocumentSyntax


@attrs.frozen
class WriteDecision:
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
        return tuple(v for v in self.open if v.blocking and (stale_blocks or v.code != STALE_FILE))

    @property
    def allowed(self) -> bool:
        return not self.blocking()

    @property
    def scope_allowed(self) -> bool:
        return not any(v.code in SCOPE_CODES for v in self.open)

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
) -> WriteDecision:
    """Judges writing ``new_text`` over ``old_text`` (the governance baseline: what the
    front door last saw) at the workspace-relative ``rel``. ``disk`` enables the
    ``stale-file`` check; the syntax trees, when the front door keeps live ones, spare
    a reparse. ``path_rules=False`` judges the change alone (``stale-file``,
    ``destructive-edit``), for a front door that judged the path with :func:`judge_path`
    already."""
    change = Change(old_text, new_text, language, disk, old_syntax, new_syntax)
    verdicts = evaluate(session, scope, rel, change, config=config, path_rules=path_rules)
    return decide(rel, verdicts, approvals)


def judge_path(session: Session, scope: ScopeIndex, rel: str) -> WriteDecision:
    """The path rules alone (``no-active-intent``, ``out-of-scope``): what a front door
    decides at once, before it has the change (the editor, on every keystroke)."""
    return decide(rel, evaluate(session, scope, rel))


def judge_file_operation(
    session: Session,
    scope: ScopeIndex,
    rel: str,
    new_rel: str | None = None,
    *,
    text: str | None = None,
    approvals: ApprovalSet | Iterable[Approval] = (),
) -> WriteDecision:
    """Judges deleting ``rel`` (``new_rel`` None) or moving it to ``new_rel``."""
    verdicts = evaluate(session, scope, rel, FileOperation(new_rel, text))
    return decide(rel, verdicts, approvals)


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


@attrs.frozen
class BuiltWrite:
    """A write's decision and its record (None when the text did not change)."""

    decision: WriteDecision
    record: dict[str, Any] | None


def build_write(
    root: Path,
    rel: str,
    old_text: str,
    new_text: str,
    *,
    session: Session,
    scope: ScopeIndex,
    contributor: Contributor,
    session_id: str | None = None,
    baseline: str | None = None,
    judged: Sequence[Verdict] | None = None,
    approvals: ApprovalSet | None = None,
    config: PolicyConfig | None = None,
    path_rules: bool = True,
    extra_verdicts: Sequence[RecordedVerdict] = (),
    extra_approvals: Sequence[Approval] = (),
    language: str | None = None,
    syntax: DocumentSyntax | None = None,
    old_syntax: DocumentSyntax | None = None,
    baseline_syntax: DocumentSyntax | None = None,
    clock: Clock | None = None,
    new_id: IdFactory = uuid.uuid4,
) -> BuiltWrite:
    """Judge -> approvals -> build for one write of ``new_text`` over ``old_text``.

    ``baseline`` is what the change is judged against when it differs from the record's
    old side (the editor's governance baseline); ``judged`` the verdicts of the change
    when the front door has them already. ``approvals`` None reads the ledger's, and
    only when a verdict an approval could lift is open.
    """
    if judged is not None:
        decision = decide(rel, judged, approvals or ())
    else:
        decision = judge_write(
            session,
            scope,
            rel,
            old_text if baseline is None else baseline,
            new_text,
            language=language,
            config=config,
            approvals=approvals or (),
            old_syntax=baseline_syntax,
            new_syntax=syntax,
            path_rules=path_rules,
        )
    if approvals is None and any(v.code in (STALE_FILE, DESTRUCTIVE_EDIT) for v in decision.open):
        decision = decide(rel, decision.verdicts, recorded_approvals(root, rel))
    record = build_record(
        root,
        rel,
        old_text,
        new_text,
        decision,
        intent_id=session.intent_id,
        session_id=session.id if session_id is None else session_id,
        contributor=contributor,
        extra_verdicts=extra_verdicts,
        extra_approvals=extra_approvals,
        language=language,
        syntax=syntax,
        old_syntax=old_syntax,
        clock=clock,
        new_id=new_id,
    )
    return BuiltWrite(decision, record)


def record_write(
    ledger: Ledger, root: Path, rel: str, old_text: str, new_text: str, **options: Any
) -> BuiltWrite:
    """:func:`build_write` (same options), then the append; the record returned is the
    sealed one. An append failure propagates as ``OSError``."""
    built = build_write(root, rel, old_text, new_text, **options)
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
