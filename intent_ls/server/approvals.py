"""Human approvals: the one place where an approval is decided and put on the ledger.

Every approval — the ``intent.approve`` command behind the "Approve out-of-scope edit",
"Approve destructive edit" and "Keep my version" quick fixes, the answer to the
question after a stale save, an approved file deletion — goes through
:func:`record_approvals`, which appends one approval record per approved content
(``metadata.intent_ls.kind = "approval"``, see docs/ledger.md) before anything else
changes. Other servers on the workspace see the record through the ledger and clear the
same verdict in their editors.

The approver is the configured contributor, except that ``unknown`` becomes ``human``
(:meth:`~intent_ls.server.config.Contributor.approver`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from intent_ls import workflow
from intent_ls.common.hashing import content_hash
from intent_ls.ledger.attribution import OpenVerdict
from intent_ls.ledger.records import build_approval_record
from intent_ls.policy.approvals import Approval, Contributor, approval_request
from intent_ls.policy.judge import Verdict
from intent_ls.policy.rules import rule_of
from intent_ls.policy.rules.rule import Approvable, Rule
from intent_ls.policy.session import TurnState
from intent_ls.server.documents import TrackedDocument
from intent_ls.server.folders import Folder
from intent_ls.server.guard import Refused
from intent_ls.server.hub import Hub
from intent_ls.syntax.model import AstNode


async def record_approvals(
    ls: Hub,
    folder: Folder,
    approvals: Sequence[tuple[Approval, str, Sequence[AstNode]]],
    uri: str | None = None,
) -> list[str]:
    """Appends one approval record per (approval, verdict message, affected nodes);
    returns their ids. A record the ledger cannot take yet stays queued (retried)."""
    ids = []
    for approval, message, nodes in approvals:
        record = build_approval_record(
            folder.root,
            approval,
            intent_id=folder.session.intent_id,
            session_id=folder.session.id,
            verdict_message=message,
            nodes=nodes,
        )
        await ls.recorder.append(folder, record, uri)
        folder.approvals.append(approval)
        ids.append(record["id"])
    return ids


def _nodes(details: dict[str, Any]) -> list[AstNode]:
    out = []
    for node in details.get("nodes") or ():
        try:
            out.append(
                AstNode(
                    str(node["kind"]),
                    str(node["name"]),
                    int(node["start_line"]),
                    int(node["end_line"]),
                    str(node["content_hash"]),
                )
            )
        except (KeyError, TypeError, ValueError):
            continue
    return out


def approval(key: dict[str, Any], approver: Contributor) -> Approval:
    """The approval of the content an approval key (``approval_request``) names."""
    return Approval(
        verdict_code=str(key["verdict_code"]),
        path=str(key["path"]),
        start_line=int(key["start_line"]),
        end_line=int(key["end_line"]),
        content_hash=str(key["content_hash"]),
        approver=approver,
    )


async def approve_verdict(
    ls: Hub, doc: TrackedDocument, verdict: Verdict | OpenVerdict
) -> list[Approval]:
    """Approves one stale or destructive verdict (live, or recorded by an earlier save)."""
    assert doc.folder is not None
    key = verdict.approval if isinstance(verdict, OpenVerdict) else verdict.details["approval"]
    approved = approval(key, ls.config.contributor.approver())
    await record_approvals(
        ls, doc.folder, [(approved, verdict.message, _nodes(verdict.details))], doc.uri
    )
    doc.pending_approvals.append(approved)
    _after(ls, doc)
    return [approved]


async def approve(
    ls: Hub,
    doc: TrackedDocument,
    lines: tuple[int, int],
    code: str,
    key: str | None,
) -> dict[str, Any]:
    """``intent.approve``: the verdict of ``code`` on 0-based ``lines`` of ``doc``."""
    folder, rel = doc.folder, doc.rel
    assert folder is not None and rel is not None
    rule = rule_of(code)
    if rule.approval is Approvable.RANGE:
        approvals = await _approve_range(ls, doc, lines, rule)
    else:
        found = _keyed(doc, lines, code, key)
        if found is None:
            what = rule.called
            raise Refused(
                f"intent.approve: no {what} of {rel} at lines {lines[0] + 1}-{lines[1] + 1}"
            )
        approvals = await approve_verdict(ls, doc, found)
    first = approvals[0]
    contributor = ls.config.contributor
    return {
        "intent": folder.session.intent_id,
        "path": rel,
        "code": code,
        "lines": [lines[0] + 1, lines[1] + 1],
        "approved": [
            {"start_line": a.start_line, "end_line": a.end_line, "content_hash": a.content_hash}
            for a in approvals
        ],
        "session": folder.session.id,
        "contributor": {
            "type": first.approver.type,
            "name": contributor.name,
            "model_id": first.approver.model_id,
        },
        "at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def _overlaps(span_start: int, span_end: int, lines: tuple[int, int]) -> bool:
    """1-based span vs 0-based inclusive lines."""
    return span_start - 1 <= lines[1] and lines[0] <= span_end - 1


def _keyed(
    doc: TrackedDocument, lines: tuple[int, int], code: str, key: str | None
) -> Verdict | OpenVerdict | None:
    live = doc.live
    if live is None:
        return None
    candidates: list[Verdict | OpenVerdict] = []
    for verdict in live.unapproved(code):
        anchor = getattr(verdict.finding, "anchor", None)
        start, end = (anchor.start, anchor.end) if anchor is not None else (1, 1)
        if _overlaps(start, end, lines):
            candidates.append(verdict)
    for found in live.open:
        if found.code == code and _overlaps(found.span.start, found.span.end, lines):
            candidates.append(found)
    if key is not None:
        candidates = [c for c in candidates if _key_of(c) == key]
    return candidates[0] if candidates else None


def _key_of(verdict: Verdict | OpenVerdict) -> str | None:
    if isinstance(verdict, OpenVerdict):
        return verdict.approval.get("content_hash")
    wanted = verdict.details.get("approval") or {}
    return wanted.get("content_hash")


async def _approve_range(
    ls: Hub, doc: TrackedDocument, lines: tuple[int, int], rule: Rule
) -> list[Approval]:
    """Approves the lines of a rule approved by range (``out-of-scope``): the live
    verdict's lines as the buffer has them, and the recorded verdicts on them."""
    folder, rel = doc.folder, doc.rel
    assert folder is not None and rel is not None
    active = folder.active
    if active is None:
        raise Refused("intent.approve: no active intent; run intent.select first")
    keys = _range_keys(doc, lines, rule)
    if keys is None:
        raise Refused(f"intent.approve: {rel} is inside {active.id}'s scope; nothing to approve")
    if not keys:
        raise Refused(f"intent.approve: no edit of {rel} at lines {lines[0] + 1}-{lines[1] + 1}")
    approver = ls.config.contributor.approver()
    approvals = [approval(key, approver) for key in _distinct(keys)]
    message = f"{rel} is outside the scope of active intent {active.id}"
    await record_approvals(ls, folder, [(a, message, ()) for a in approvals], doc.uri)
    doc.pending_approvals.extend(approvals)
    _after(ls, doc)
    return approvals


def _range_keys(
    doc: TrackedDocument, lines: tuple[int, int], rule: Rule
) -> list[dict[str, Any]] | None:
    """The approval keys of the rule's verdicts on ``lines``: the live verdict's lines
    as the buffer has them, and the recorded verdicts there; None when there is no
    verdict of the rule at all."""
    folder, rel = doc.folder, doc.rel
    assert folder is not None and rel is not None
    path = workflow.judge_path(folder.session, folder.scope, rel)
    live = any(v.code == rule.code for v in path.verdicts)
    recorded = [
        f
        for f in (doc.live.open if doc.live is not None else ())
        if f.code == rule.code and _overlaps(f.span.start, f.span.end, lines)
    ]
    if not live and not recorded:
        return None
    keys: list[dict[str, Any]] = []
    if live and doc.absorb(*lines):
        text = [line.rstrip("\r\n") for line in doc.lines[lines[0] : lines[1] + 1]]
        keys.append(
            approval_request(rule.code, rel, lines[0] + 1, lines[1] + 1, content_hash(text))
        )
    keys.extend(f.approval for f in recorded)
    return keys


def _distinct(keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The keys, each content hash once (the first)."""
    seen: dict[str, dict[str, Any]] = {}
    for key in keys:
        seen.setdefault(key["content_hash"], key)
    return list(seen.values())


def _after(ls: Hub, doc: TrackedDocument) -> None:
    folder = doc.folder
    assert folder is not None
    if folder.session.state is TurnState.BLOCKED:
        folder.session.resolve()
    ls.publish(doc)
    ls.send_status(folder)
    ls.analyzer.schedule(doc, delay=0)
