"""The intent lifecycle in the editor: "Start intent" and "Complete intent".

Both change one intent's ``status`` (and ``updated_at``) in ``active_intents.yaml`` by a
small versioned WorkspaceEdit, so the human's comments and layout stay and the edit
lands in their buffer (undoable, saved by them) rather than behind their back. They are
the ``intent.start`` / ``intent.complete`` commands, offered as code lenses over each
intent in the spec and as code actions on its lines. Completing asks first, showing the
acceptance criteria, and warns when the intent's files still carry unapproved verdicts:
completing is the moment a reviewer should look at them.
"""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from intent_ls.ledger.attribution import open_verdicts
from intent_ls.policy.rules import SCOPE_CODES, rule_of
from intent_ls.server import arguments
from intent_ls.server.diagnostics import to_range
from intent_ls.server.disk import read_text
from intent_ls.server.edits import apply, document_edit, open_version
from intent_ls.server.folders import Folder
from intent_ls.server.guard import Refused, brief
from intent_ls.server.hub import Hub
from intent_ls.server.spec_edits import spec_text
from intent_ls.server.trace import FolderTrace
from intent_ls.spec.edit import SpecEditError, apply_edits, set_status
from intent_ls.spec.model import Intent, Status

logger = logging.getLogger(__name__)

START = "intent.start"
COMPLETE = "intent.complete"
#: Which statuses each transition starts from.
STARTS_FROM = (Status.DRAFT,)
COMPLETES_FROM = (Status.IN_PROGRESS, Status.BLOCKED)
CANCEL = "Cancel"
#: How many unapproved verdicts the warning names before summarising the rest.
NAMED_VERDICTS = 5


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def lenses(ls: Hub, uri: str) -> list[types.CodeLens]:
    """A "Start intent" or "Complete intent" lens over each intent that can move."""
    folder = ls.folder_for_uri(uri)
    if folder is None or not folder.governed or folder.spec_uri != uri:
        return []
    lines = spec_text(ls, folder).splitlines()
    out = []
    for intent, name, title in _transitions(folder):
        at = to_range(lines, intent.span, ls.codec).start
        out.append(
            types.CodeLens(
                range=types.Range(start=at, end=at),
                command=types.Command(title=title, command=name, arguments=[intent.id, uri]),
            )
        )
    return out


def actions(ls: Hub, uri: str, where: types.Range) -> list[types.CodeAction]:
    """The same transitions as code actions, for the intent the cursor is in."""
    folder = ls.folder_for_uri(uri)
    if folder is None or not folder.governed or folder.spec_uri != uri:
        return []
    out = []
    for intent, name, title in _transitions(folder):
        if intent.span.start.line <= where.start.line <= intent.span.end.line:
            out.append(
                types.CodeAction(
                    title=f"{title} {intent.id}",
                    kind=types.CodeActionKind.Refactor,
                    command=types.Command(title=title, command=name, arguments=[intent.id, uri]),
                )
            )
    return out


def _transitions(folder: Folder) -> list[tuple[Intent, str, str]]:
    out = []
    for intent in folder.spec.intents:
        if intent.status in STARTS_FROM:
            out.append((intent, START, "Start intent"))
        elif intent.status in COMPLETES_FROM:
            out.append((intent, COMPLETE, "Complete intent"))
    return out


def _intent(ls: Hub, name: str, args: tuple[Any, ...]) -> tuple[Folder, Intent]:
    arguments.arity(name, args, 1, 2, "[id] or [id, uri]")
    intent_id = arguments.string(name, args[0], "the intent id")
    folder = arguments.folder(ls, name, args[1] if len(args) > 1 else None)
    intent = folder.spec.get(intent_id or "")
    if intent is None:
        raise Refused(f"{name}: no intent {brief(intent_id)} in the spec")
    return folder, intent


async def start(ls: Hub, *args: Any) -> dict[str, Any]:
    """``[id]`` or ``[id, uri]``: a DRAFT intent becomes IN_PROGRESS."""
    folder, intent = _intent(ls, START, args)
    if intent.status not in STARTS_FROM:
        raise Refused(f"{START}: {intent.id} is {intent.status.value}; only a DRAFT can start")
    return await _move(ls, folder, intent, Status.IN_PROGRESS, START)


async def complete(ls: Hub, *args: Any) -> dict[str, Any]:
    """``[id]`` or ``[id, uri]``: after the user confirms, the intent becomes COMPLETED."""
    folder, intent = _intent(ls, COMPLETE, args)
    if intent.status not in COMPLETES_FROM:
        raise Refused(
            f"{COMPLETE}: {intent.id} is {intent.status.value}; only an IN_PROGRESS or BLOCKED "
            "intent can be completed"
        )
    open_ones = await unapproved(ls, folder, intent.id)
    confirmed = await _confirm(ls, intent, open_ones)
    if not confirmed:
        return {
            "intent": intent.id,
            "status": intent.status.value,
            "applied": False,
            "reason": "not confirmed",
            "unapproved": len(open_ones),
        }
    result = await _move(ls, folder, intent, Status.COMPLETED, COMPLETE)
    return {**result, "unapproved": len(open_ones)}


async def _confirm(ls: Hub, intent: Intent, open_ones: list[tuple[str, str]]) -> bool:
    criteria = "; ".join(intent.acceptance_criteria) or "none listed"
    question = f"Complete {intent.id}: {intent.name}? Acceptance criteria: {criteria}."
    warning = ""
    if open_ones:
        named = ", ".join(f"{rel} ({code})" for rel, code in open_ones[:NAMED_VERDICTS])
        more = len(open_ones) - NAMED_VERDICTS
        warning = (
            f"{len(open_ones)} unapproved verdict{'s' if len(open_ones) != 1 else ''} on its "
            f"files: {named}{f' and {more} more' if more > 0 else ''}. "
        )
    yes = f"Complete {intent.id} anyway" if open_ones else f"Complete {intent.id}"
    answer = await ls.window_show_message_request_async(
        types.ShowMessageRequestParams(
            type=types.MessageType.Warning if open_ones else types.MessageType.Info,
            message=f"intent-ls: {warning}{question}",
            actions=[types.MessageActionItem(title=yes), types.MessageActionItem(title=CANCEL)],
        )
    )
    return answer is not None and answer.title == yes


async def _move(
    ls: Hub, folder: Folder, intent: Intent, status: Status, name: str
) -> dict[str, Any]:
    result = {"intent": intent.id, "status": status.value}
    try:
        text = spec_text(ls, folder)
        edits = set_status(text, intent.id, status.value, now())
    except SpecEditError as exc:
        raise Refused(f"{name}: {exc}") from None
    if get_capability(ls.client_capabilities, "workspace.apply_edit", False):
        lines = text.splitlines()
        changes = [
            types.TextEdit(range=to_range(lines, e.span, ls.codec), new_text=e.new_text)
            for e in edits
        ]
        uri = folder.spec_uri
        edit = document_edit(ls, uri, open_version(ls, uri), changes)
        refused = await apply(ls, edit, f"{intent.id} → {status.value}")
        if refused is not None:
            return {**result, "applied": False, "reason": refused}
        return {**result, "applied": True}
    if folder.spec_uri in ls.documents:
        raise Refused(
            f"{name}: this editor cannot apply edits and has the spec open; set "
            f"status: {status.value} in it by hand"
        )
    path = folder.workspace.spec_path
    path.write_text(apply_edits(text, edits), encoding="utf-8")
    ls.refresh(folder)
    return {**result, "applied": True}


async def unapproved(ls: Hub, folder: Folder, intent_id: str) -> list[tuple[str, str]]:
    """(file, verdict code) of each unapproved verdict on the intent's files: open
    buffers as analysed now, other files from the ledger against their disk content."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for doc in list(ls.documents.values()):
        if doc.folder is not folder or doc.rel is None or not doc.governed:
            continue
        if not folder.scope.owns(intent_id, doc.rel) or doc.live is None:
            continue
        seen.add(doc.rel)
        found += [(doc.rel, v.code) for v in doc.live.unapproved()]
        # The intent owns the file: its scope verdicts are covered.
        found += [(doc.rel, v.code) for v in doc.live.open if not rule_of(v.code).selects_intent]
    trace = await ls.recorder.indexed(folder)
    for rel in await ls.workers.query(_recorded_paths, trace, intent_id):
        if rel in seen or not folder.scope.owns(intent_id, rel):
            continue
        found += await ls.workers.query(_closed_file_verdicts, trace, rel)
    return found


def _recorded_paths(trace: FolderTrace, intent_id: str) -> list[str]:
    """Index thread: the files the intent's records touched, newest first (none when
    the ledger cannot be read: the warning is then about open buffers only)."""
    paths: dict[str, None] = {}
    try:
        if not trace.ready() or trace.index is None:
            return []
        for ref in trace.index.records_for_intent(intent_id):
            record = trace.index.load_record(ref)
            for file in record.get("files") or ():
                if isinstance(file, dict) and isinstance(file.get("path"), str):
                    paths.setdefault(file["path"])
    except (OSError, ValueError, sqlite3.Error) as exc:
        logger.warning("reading the trace ledger of %s failed: %s", trace.root, exc)
    return list(paths)


def _closed_file_verdicts(trace: FolderTrace, rel: str) -> list[tuple[str, str]]:
    """Index thread: the recorded verdicts of ``rel`` still open in its disk content."""
    history = trace.history(rel)
    if not history.gated:
        return []
    text = read_text(Path(trace.root) / rel)
    if text is None:
        return []
    found = open_verdicts(
        history.gated, rel, text, approvals=history.approvals, covered=SCOPE_CODES
    )
    return [(rel, v.code) for v in found]
