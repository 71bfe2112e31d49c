"""What a save of a governed document does: decide, record, ask.

On ``didSave`` (the record is about what the editor just wrote, i.e. the buffer):

1. The verdicts present at this moment are collected on the event loop: the scope
   verdicts, the ``stale-file`` verdict of the willSave re-check (approved or not), and
   the ``destructive-edit`` verdicts of the change since the governance baseline (from
   the last analysis if it is of this version, else computed now). Approvals that apply
   — made since the last record, or matching a verdict — are listed with them.
2. The governance baseline moves to the saved text only if no blocking verdict is left
   unapproved (docs/server.md, "Edit tracking"); the record baseline and the disk
   baseline always move.
3. One worker job builds the record from the live tree and appends it (see
   :mod:`intent_ls.server.ledger`); the old side is the last record's content, or what
   another writer left on disk when the willSave re-check read something else.
4. After a stale save nobody approved, the user is asked (see :mod:`.stale`).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from intent_ls.hashing import text_hash
from intent_ls.ledger.records import Approval, RecordedVerdict
from intent_ls.policy import DESTRUCTIVE_EDIT, ApprovalSet, Verdict, evaluate
from intent_ls.server import stale
from intent_ls.server.ledger import SaveJob, contributor_of

if TYPE_CHECKING:
    from intent_ls.server.documents import TrackedDocument
    from intent_ls.server.folders import Folder
    from intent_ls.server.server import IntentLanguageServer


def _recorded(verdict: Verdict) -> RecordedVerdict:
    return RecordedVerdict(verdict.code, verdict.message, dict(verdict.details))


def approvals_of(doc: TrackedDocument) -> ApprovalSet:
    return ApprovalSet(doc.history.approvals if doc.history is not None else ())


def on_save(ls: IntentLanguageServer, doc: TrackedDocument) -> None:
    folder, rel = doc.folder, doc.rel
    assert folder is not None and rel is not None
    text = ls.workspace.get_text_document(doc.uri).source
    context = stale.save_context(ls, doc, text, approvals_of(doc))
    scope = evaluate(folder.session, folder.scope, rel)
    live = ls.analyzer.now(doc)
    destructive = [v for v in live.verdicts if v.code == DESTRUCTIVE_EDIT]
    allowed = not any(v.blocking for v in scope) and not any(
        not live.approved(v) for v in destructive
    )
    verdicts = [_recorded(v) for v in scope]
    approvals: list[Approval] = list(doc.pending_approvals)
    doc.pending_approvals = []
    stale_verdict = stale.stale_of(context, None)
    if stale_verdict is not None and context is not None:
        verdicts.append(_recorded(stale_verdict))
        if context.check.approval is not None:
            approvals.append(context.check.approval)
    for verdict in destructive:
        verdicts.append(_recorded(verdict))
        found = live.approvals.find(verdict.code, rel, _key(verdict))
        if found is not None:
            approvals.append(found)
    old, from_record = doc.record_text or "", True
    if (
        context is not None
        and context.disk_text is not None
        and text_hash(context.disk_text) != text_hash(old)
    ):
        old, from_record = context.disk_text, False  # another writer's content was on disk
    doc.record_text = text
    if doc.disk is not None:
        doc.disk.saved(text)
    if allowed:
        doc.rebase()
    tree = doc.tree
    job = SaveJob(
        root=folder.root,
        rel=rel,
        old_text=old,
        new_text=text,
        intent_id=folder.session.intent_id,
        session_id=folder.session.id,
        contributor=contributor_of(ls),
        verdicts=tuple(verdicts),
        approvals=tuple(_unique(approvals)),
        language=doc.language,
        allowed=allowed,
        from_record=from_record,
        fsync=ls.config.ledger.fsync,
    )
    future = ls.recorder.submit_save(folder, tree, tree.take() if tree else None, job)
    ls.evaluate(doc)
    needs_answer = context is not None and context.check.needs_confirmation
    ls.spawn(
        _finish(
            ls,
            doc,
            folder,
            future,
            stale_verdict if needs_answer else None,
            context.disk_text if context is not None else None,
        )
    )


def _key(verdict: Verdict) -> str | None:
    wanted = verdict.details.get("approval")
    return wanted.get("content_hash") if isinstance(wanted, dict) else None


def _unique(approvals: list[Approval]) -> list[Approval]:
    seen: dict[tuple[str, str, str], Approval] = {}
    for a in approvals:
        seen.setdefault((a.verdict_code, a.path, a.content_hash), a)
    return list(seen.values())


async def _finish(
    ls: IntentLanguageServer,
    doc: TrackedDocument,
    folder: Folder,
    future: Future[Any],
    unanswered: Verdict | None,
    overwritten: str | None,
) -> None:
    result = await asyncio.wrap_future(future)
    await ls.recorder.appended(folder, result, doc.uri)
    if ls.documents.get(doc.uri) is doc:
        ls.analyzer.schedule(doc, delay=0)
        if unanswered is not None:
            await stale.ask_after_save(ls, doc, unanswered, overwritten)
