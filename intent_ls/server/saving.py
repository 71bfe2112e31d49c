"""What a save of a governed document does: decide, record, ask.

On ``didSave`` (the record is about what the editor just wrote, i.e. the buffer):

1. On the event loop, cheaply: the scope verdicts and the ``stale-file`` verdict of the
   willSave re-check (approved or not) are collected; the record baseline and the disk
   baseline move to the saved text; the governance baseline moves too unless a scope
   verdict blocks (docs/server.md, "Edit tracking").
2. One worker job, queued at once so that it sees the tree exactly as saved: the tree
   is brought up to the saved text, the policy judges the change since the governance
   baseline (``destructive-edit``, approvals applied; the path was judged on the loop,
   both through :mod:`intent_ls.workflow` like every front door), the record is built from the live
   tree and the snapshot taken at the last record (nothing is reparsed) with every
   verdict present and every approval that applies, and appended. The old side is the
   last record's content, or what another writer left on disk when the willSave
   re-check read something else.
   When the debounced analysis already judged this very text, its destructive verdicts
   are used and the governance decision is exact at once.
3. Back on the loop: if the change had not been judged yet and the job finds an
   unapproved destructive edit, the save was not allowed after all and the governance
   baseline goes back (rare: a save right after a destructive keystroke); after a stale
   save nobody approved, the user is asked (see :mod:`.stale`).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from concurrent.futures import Future
from datetime import datetime
from pathlib import Path
from typing import Any

import attrs

from intent_ls import workflow
from intent_ls.common.hashing import text_hash
from intent_ls.ledger.journal import ledger_has, orphans, remove_entry, write_entry
from intent_ls.ledger.records import RecordedVerdict, approvals_from_records, utc_now
from intent_ls.policy.approvals import Approval, ApprovalSet, Contributor
from intent_ls.policy.judge import PolicyConfig, Verdict
from intent_ls.policy.session import Session
from intent_ls.scope.index import ScopeIndex
from intent_ls.server import stale
from intent_ls.server.documents import TrackedDocument
from intent_ls.server.folders import Folder
from intent_ls.server.hub import Hub
from intent_ls.server.trace import FolderTrace
from intent_ls.server.trees import Batch, LiveTree

logger = logging.getLogger(__name__)


@attrs.frozen
class SaveJob:
    """Everything a save's record is built from, captured when the save arrives."""

    root: Path
    rel: str
    #: The old side of the record: the last record's content, or another writer's.
    old_text: str
    from_record: bool
    new_text: str
    #: The governance baseline the change is judged against (destructive edits).
    baseline: str
    language: str | None
    intent_id: str | None
    session: Session
    scope: ScopeIndex
    config: PolicyConfig
    contributor: Contributor
    #: Scope and stale verdicts, collected on the loop; destructive ones are added.
    verdicts: tuple[RecordedVerdict, ...]
    approvals: tuple[Approval, ...]
    known: ApprovalSet = attrs.field(eq=False)
    scope_allowed: bool
    fsync: bool
    #: The destructive verdicts of this very text and baseline, if the debounced
    #: analysis already has them (then the job does not judge the change again).
    destructive: tuple[Verdict, ...] | None = None
    #: The record's id and timestamp, fixed when the save arrived (a replay after a
    #: crash appends the very record the save would have).
    record_id: uuid.UUID = attrs.field(factory=uuid.uuid4)
    saved_at: datetime = attrs.field(factory=utc_now)
    #: The save's journal entry (:mod:`intent_ls.ledger.journal`), removed once the
    #: record is on the ledger.
    journal: Path | None = None

    def to_entry(self) -> dict[str, Any]:
        """What a replay needs to build this record (see :func:`job_from_entry`)."""
        return {
            "id": str(self.record_id),
            "saved_at": self.saved_at.isoformat(),
            "rel": self.rel,
            "old_text": self.old_text,
            "new_text": self.new_text,
            "baseline": None if self.baseline == self.old_text else self.baseline,
            "language": self.language,
            "intent_id": self.intent_id,
            "session_id": self.session.id,
            "contributor": self.contributor.to_json(),
            "verdicts": [v.to_json() for v in self.verdicts],
            "approvals": [a.to_json() for a in self.approvals],
            "scope_allowed": self.scope_allowed,
        }


def job_from_entry(
    root: Path, entry: dict[str, Any], scope: ScopeIndex, config: PolicyConfig, fsync: bool
) -> SaveJob:
    """The job of a save a crashed server journalled but never recorded. Without the
    live tree both sides are parsed; the destructive analysis runs again."""
    old = entry["old_text"]
    recorded = {"metadata": {"intent_ls": {"approvals": entry["approvals"]}}}
    approvals = approvals_from_records([recorded])
    contributor = entry.get("contributor") or {}
    return SaveJob(
        root=root,
        rel=entry["rel"],
        old_text=old,
        from_record=False,
        new_text=entry["new_text"],
        baseline=old if entry.get("baseline") is None else entry["baseline"],
        language=entry.get("language"),
        intent_id=entry.get("intent_id"),
        session=Session(id=entry["session_id"], intent_id=entry.get("intent_id")),
        scope=scope,
        config=config,
        contributor=Contributor(contributor.get("type", "unknown"), contributor.get("model_id")),
        verdicts=tuple(
            RecordedVerdict(v["code"], v["message"], dict(v.get("details") or {}))
            for v in entry["verdicts"]
        ),
        approvals=tuple(approvals),
        known=ApprovalSet(approvals),
        scope_allowed=bool(entry.get("scope_allowed", True)),
        fsync=fsync,
        record_id=uuid.UUID(entry["id"]),
        saved_at=datetime.fromisoformat(entry["saved_at"]),
    )


@attrs.frozen
class SaveResult:
    written: list[dict[str, Any]]
    error: OSError | None
    allowed: bool


def approvals_of(doc: TrackedDocument) -> ApprovalSet:
    return ApprovalSet(doc.history.approvals if doc.history is not None else ())


def record_save(
    trace: FolderTrace, tree: LiveTree | None, batch: Batch | None, job: SaveJob
) -> SaveResult:
    """Worker thread: judge, build and append the record of one save."""
    syntax = old_syntax = governed = now = None
    if tree is not None and batch is not None:
        tree.apply(batch, job.new_text)
        now = tree.current(job.new_text)
        syntax = now.syntax
        old_syntax = tree.tree_for(tree.record, job.old_text) if job.from_record else None
        governed = tree.tree_for(tree.governance, job.baseline)
    built = workflow.build_write(
        workflow.Write(
            job.root,
            job.rel,
            job.old_text,
            job.new_text,
            job.session,
            job.scope,
            job.contributor,
            language=job.language,
            baseline=job.baseline,
            judged=job.destructive,
            approvals=job.known,
            config=job.config,
            path_rules=False,
            extra_verdicts=job.verdicts,
            extra_approvals=job.approvals,
            trees=workflow.Trees(syntax, old_syntax, governed),
            clock=lambda: job.saved_at,
            new_id=lambda: job.record_id,
        )
    )
    allowed = job.scope_allowed and built.decision.allowed
    record = built.record
    if tree is not None and now is not None:
        tree.record = now
        if allowed:
            tree.governance = now
    if job.journal is not None:
        if record is None:
            remove_entry(job.journal)
        else:
            trace.journals[record["id"]] = job.journal
    if record is None and not trace.pending:
        return SaveResult([], None, allowed)
    written, error = trace.append(record, job.fsync)
    return SaveResult(written, error, allowed)


def on_save(ls: Hub, doc: TrackedDocument) -> None:
    folder, rel = doc.folder, doc.rel
    assert folder is not None and rel is not None
    text = ls.workspace.get_text_document(doc.uri).source
    stale.take_back_early_save(doc, text)
    known = approvals_of(doc)
    context = stale.save_context(ls, doc, text, known)
    scope = workflow.judge_path(folder.session, folder.scope, rel)
    verdicts = scope.recorded()
    approvals: list[Approval] = list(doc.pending_approvals)
    doc.pending_approvals = []
    stale_verdict = stale.stale_of(context, None)
    if stale_verdict is not None and context is not None:
        verdicts.extend(workflow.recorded((stale_verdict,)))
        if context.check.approval is not None:
            approvals.append(context.check.approval)
    on_disk = context.disk_text if context is not None else None
    old, from_record = _record_side(doc.record_text or "", on_disk, text)
    baseline = "".join(doc.baseline)
    judged = _judged(doc)
    scope_allowed = not scope.blocking()
    doc.record_text = text
    if doc.disk is not None:
        doc.disk.saved(text)
    before = doc.baseline
    if scope_allowed and (judged is None or workflow.decide(rel, judged, known).allowed):
        doc.rebase()  # when the change was not judged yet, the job may take this back
    tree = doc.tree
    job = SaveJob(
        root=folder.root,
        rel=rel,
        old_text=old,
        from_record=from_record,
        new_text=text,
        baseline=baseline,
        language=doc.language,
        intent_id=folder.session.intent_id,
        session=folder.session.copy(),
        scope=folder.scope,
        config=ls.config.policy(folder.scope.spec),
        contributor=ls.config.contributor.author(),
        verdicts=tuple(verdicts),
        approvals=tuple(approvals),
        known=known,
        scope_allowed=scope_allowed,
        fsync=ls.config.ledger.fsync,
        destructive=judged,
    )
    if old != text:
        job = attrs.evolve(job, journal=_journal(ls, folder, job))
    batch = tree.take() if tree is not None else None
    future = ls.workers.submit(record_save, folder.trace, tree, batch, job)
    ls.publish(doc)
    needs_answer = context is not None and context.check.needs_confirmation
    ls.spawn(
        _finish(
            ls,
            doc,
            folder,
            future,
            (before, doc.baseline),
            stale_verdict if needs_answer else None,
            on_disk,
        )
    )


def _record_side(old: str, on_disk: str | None, text: str) -> tuple[str, bool]:
    """What the save's record is against, and whether that is the last record's text:
    another writer's content on disk is what the save overwrote (unless it equals the
    buffer: the disk already holds this save's write, seen early)."""
    if on_disk is not None and text_hash(on_disk) not in (text_hash(old), text_hash(text)):
        return on_disk, False
    return old, True


def _judged(doc: TrackedDocument) -> tuple[Verdict, ...] | None:
    """The analysis' verdicts of this very text and baseline, but for the rules a save
    judges again against the disk just before writing; None when it has none yet."""
    live = doc.live
    if live is None or (live.version, live.baseline_version) != (
        doc.version,
        doc.baseline_version,
    ):
        return None
    return tuple(v for v in live.verdicts if not v.rule.reads_disk)


def replay_saves(
    trace: FolderTrace, scope: ScopeIndex, config: PolicyConfig, fsync: bool
) -> tuple[list[dict[str, Any]], OSError | None]:
    """Worker thread, at start: appends the records of saves that a server which is gone
    journalled but never appended (see :mod:`intent_ls.ledger.journal`)."""
    written: list[dict[str, Any]] = []
    for claimed, entry in orphans(trace.root):
        try:
            job = job_from_entry(trace.root, entry, scope, config, fsync)
        except (KeyError, TypeError, ValueError) as exc:
            logger.warning("save journal entry %s is malformed (%r); set aside", claimed, exc)
            claimed.replace(claimed.with_name(claimed.name + ".broken"))
            continue
        if ledger_has(trace.ledger.path, str(job.record_id)):
            remove_entry(claimed)  # appended just before the crash
            continue
        result = record_save(trace, None, None, attrs.evolve(job, journal=claimed))
        written.extend(result.written)
        if result.error is not None:
            return written, result.error
    return written, None


def _journal(ls: Hub, folder: Folder, job: SaveJob) -> Path | None:
    """Journals the save before its job is queued: from here on a crash cannot lose it."""
    try:
        return write_entry(folder.root, str(job.record_id), job.to_entry())
    except OSError as exc:  # the record is still made; only crash-safety is lost
        ls.log(f"intent-ls: {job.rel}: could not journal the save ({exc})")
        return None


async def _finish(
    ls: Hub,
    doc: TrackedDocument,
    folder: Folder,
    future: Future[SaveResult],
    baselines: tuple[list[str], list[str]],
    unanswered: Verdict | None,
    overwritten: str | None,
) -> None:
    result = await asyncio.wrap_future(future)
    open_ = ls.documents.get(doc.uri) is doc
    before, after = baselines
    if open_ and not result.allowed and doc.baseline is after and after is not before:
        doc.restore_baseline(before)  # an unapproved destructive edit: not allowed
        ls.publish(doc)
    await ls.recorder.appended(folder, (result.written, result.error), doc.uri)
    if open_:
        ls.analyzer.schedule(doc, delay=0)
        if unanswered is not None:
            await stale.ask_after_save(ls, doc, unanswered, overwritten)
