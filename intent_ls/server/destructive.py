"""Destructive edits: quick fixes on ``destructive-edit`` and the file operations.

The verdicts come from the policy (:mod:`intent_ls.policy.destructive` behind it) through the
analysis; this module renders what a human does about them:

- **Approve destructive edit**: ``intent.approve`` with the finding's approval key; the
  approval record lists the affected definitions with their content hashes.
- **Restore deleted code**: the finding's ``restore`` edits (0-based lines, code-point
  columns in the analysed text) as a WorkspaceEdit in the client's position units.
- **Deleting or renaming files** (``workspace/willDeleteFiles`` / ``willRenameFiles``,
  registered for every file): the policy judges a :class:`~intent_ls.policy.judge.FileOperation`
  per governed file; a blocking verdict is put to the user
  (``window/showMessageRequest``) and an approval is recorded. LSP cannot veto the
  operation, so without approval it goes ahead and the user is told that
  ``intent-ls check`` will report it. The ``did*`` notifications update the server's
  state (histories of the paths involved, open documents' disk state).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.uris import from_fs_path

from intent_ls import workflow
from intent_ls.common.uris import path_of_uri
from intent_ls.policy.approvals import Approval, whole_file_request
from intent_ls.policy.judge import Verdict
from intent_ls.policy.rules import rule_of
from intent_ls.server import stale
from intent_ls.server.approvals import approval, record_approvals
from intent_ls.server.arguments import approve_action
from intent_ls.server.disk import path_of, read_text
from intent_ls.server.documents import TrackedDocument
from intent_ls.server.edits import document_edit
from intent_ls.server.folders import Folder
from intent_ls.server.hub import Hub
from intent_ls.syntax.model import AstNode

RESTORE_TITLE = "Restore deleted code"
APPROVE_OPERATION = "Approve"
#: Files looked at, at most, when a whole directory is deleted or renamed.
MAX_FILES = 1000

OPERATION_FILTERS = types.FileOperationRegistrationOptions(
    filters=[
        types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*"), scheme="file")
    ]
)


def fixes(ls: Hub, doc: TrackedDocument, diag: types.Diagnostic) -> list[types.CodeAction]:
    data = diag.data if isinstance(diag.data, dict) else {}
    key = (data.get("approval") or {}).get("content_hash")
    actions: list[types.CodeAction] = []
    finding, key = _finding(doc, diag, key, bool(data.get("record")))
    if finding is not None and getattr(finding, "restore", ()):
        actions.append(
            types.CodeAction(
                title=RESTORE_TITLE,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=True,
                edit=restore_edit(ls, doc, finding.restore),
            )
        )
    rule = rule_of(str(diag.code))
    actions.append(approve_action(rule.quick_fix, doc.uri, diag, rule.code, key))
    return actions


def _finding(
    doc: TrackedDocument, diag: types.Diagnostic, key: str | None, recorded: bool
) -> tuple[Any, str | None]:
    """The live finding the diagnostic shows (by its key, else by its range) and the
    key to approve; no finding for a recorded verdict or an outdated analysis."""
    live = doc.live
    if live is None or live.version != doc.version or recorded:
        return None, key
    for verdict in live.unapproved(str(diag.code)):
        anchor = getattr(verdict.finding, "anchor", None)
        if anchor is None:
            continue
        named = (verdict.details.get("approval") or {}).get("content_hash")
        overlaps = anchor.start - 1 <= diag.range.end.line and diag.range.start.line <= (
            anchor.end - 1
        )
        if (key is not None and named == key) or overlaps:
            return verdict.finding, key or named
    return None, key


def restore_edit(ls: Hub, doc: TrackedDocument, edits: Any) -> types.WorkspaceEdit:
    lines = doc.lines

    def position(line: int, column: int) -> types.Position:
        text = lines[line] if line < len(lines) else ""
        return types.Position(line=line, character=ls.codec.client_num_units(text[:column]))

    changes = [
        types.TextEdit(
            range=types.Range(start=position(*e.start), end=position(*e.end)), new_text=e.text
        )
        for e in edits
    ]
    return document_edit(ls, doc.uri, doc.version, changes)


# -- file operations --------------------------------------------------------------------


def _files(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    found: list[Path] = []
    for base, dirs, names in os.walk(path):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            found.append(Path(base) / name)
            if len(found) >= MAX_FILES:
                return found
    return found


def _judge(
    ls: Hub, old_uri: str, new_uri: str | None
) -> list[tuple[Folder, str, Verdict, str | None]]:
    """(folder, path, blocking verdict, text) for every governed file the operation
    touches; a directory stands for the files in it."""
    out: list[tuple[Folder, str, Verdict, str | None]] = []
    old_path = path_of(old_uri)
    if old_path is None:
        return out
    new_path = path_of(new_uri) if new_uri else None
    for file in _files(old_path):
        found = _governed(ls, file)
        if found is None:
            continue
        folder, rel, uri = found
        new_rel = None
        if new_path is not None:
            target = new_path / file.relative_to(old_path) if file != old_path else new_path
            new_rel = folder.workspace.relative(target) if target else None
        doc = ls.documents.get(uri)
        text = ls.workspace.get_text_document(uri).source if doc else read_text(file)
        decision = workflow.judge_file_operation(
            folder.session,
            folder.scope,
            rel,
            new_rel,
            text=text,
            language=doc.language if doc else None,
            config=ls.config.policy(folder.scope.spec),
        )
        out += [(folder, rel, v, text) for v in decision.verdicts if v.blocking]
    return out


def _governed(ls: Hub, file: Path) -> tuple[Folder, str, str] | None:
    """(its folder, its path there, its URI) when ``file`` is governed."""
    uri = from_fs_path(str(file)) or ""
    folder = ls.folder_for_uri(uri)
    if folder is None or not folder.governed:
        return None
    info = folder.workspace.classify(file)
    if info.rel is None or not info.governed:
        return None
    return folder, info.rel, uri


async def will_operate(ls: Hub, pairs: list[tuple[str, str | None]], what: str) -> None:
    """willDeleteFiles / willRenameFiles: ask, and record the approval if given."""
    judged = [j for old, new in pairs for j in _judge(ls, old, new)]
    if not judged:
        return
    for old, _ in pairs:
        ls.operations_seen.add(old)
    approvable = [j for j in judged if j[2].rule.approvable]
    summary = _summary(judged)
    needs_intent = any(j[2].rule.selects_intent and not j[2].rule.approvable for j in judged)
    if approvable and get_capability(ls.client_capabilities, "window.show_message", None):
        answer = await ls.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Warning,
                message=f"intent-ls: {what} needs your approval: {summary}",
                actions=[
                    types.MessageActionItem(title=APPROVE_OPERATION),
                    types.MessageActionItem(title="Don't approve"),
                ],
            )
        )
        if answer is not None and answer.title == APPROVE_OPERATION:
            await _record(ls, approvable)
            if needs_intent:
                ls.show(
                    f"intent-ls: {what}: approved, but no intent is active; select one that "
                    "owns these files so the change is attributed",
                    types.MessageType.Warning,
                )
            return
    ls.show(
        f"intent-ls: {what} without approval: {summary}. `intent-ls check` will report it.",
        types.MessageType.Warning,
    )


def _summary(judged: list[tuple[Folder, str, Verdict, str | None]]) -> str:
    """The verdicts in a line: the first five, and how many in all."""
    lines = sorted({f"{rel}: {verdict.message}" for _, rel, verdict, _ in judged})
    return "; ".join(lines[:5]) + (f"; … ({len(lines)} in all)" if len(lines) > 5 else "")


async def _record(ls: Hub, judged: list[tuple[Folder, str, Verdict, str | None]]) -> None:
    approver = ls.config.contributor.approver()
    by_folder: dict[str, list[tuple[Approval, str, list[AstNode]]]] = {}
    folders: dict[str, Folder] = {}
    for folder, rel, verdict, text in judged:
        key = verdict.details.get("approval")
        finding = verdict.finding
        if key is None:
            key = whole_file_request(verdict.code, rel, text)
        approved = approval({**key, "verdict_code": verdict.code}, approver)
        nodes = list(getattr(finding, "nodes", ()) or ())
        by_folder.setdefault(folder.uri, []).append((approved, verdict.message, nodes))
        folders[folder.uri] = folder
    for uri, items in by_folder.items():
        await record_approvals(ls, folders[uri], items)


async def did_operate(ls: Hub, pairs: list[tuple[str, str | None]], what: str) -> None:
    """didDeleteFiles / didRenameFiles: forget the old paths' histories, re-read open
    documents' disk state, and report operations no will* request announced."""
    unannounced = [(old, new) for old, new in pairs if old not in ls.operations_seen]
    for old, _ in pairs:
        ls.operations_seen.discard(old)
        folder = ls.folder_for_uri(old)
        path = path_of_uri(old)
        rel = folder.workspace.relative(path) if folder is not None and path else None
        if folder is not None and rel:
            await ls.workers.query(folder.trace.forget, rel)
    for doc in list(ls.documents.values()):
        if any(doc.uri == old or doc.uri.startswith(old.rstrip("/") + "/") for old, _ in pairs):
            stale.disk_changed(ls, doc)
    lines = [line for old, new in unannounced for line in _unapproved(ls, old, new)]
    if lines:
        ls.show(
            f"intent-ls: {what} without approval: {'; '.join(sorted(set(lines))[:5])}. "
            "`intent-ls check` will report it.",
            types.MessageType.Warning,
        )


def _unapproved(ls: Hub, old: str, new: str | None) -> list[str]:
    """What an operation no will* request announced did without approval, a line per
    blocking verdict."""
    folder = ls.folder_for_uri(old)
    path = path_of_uri(old)
    if folder is None or not folder.governed or not path:
        return []
    info = folder.workspace.classify(path)
    if info.rel is None or not info.governed:
        return []
    new_rel = folder.workspace.relative(path_of_uri(new) or "") if new else None
    decision = workflow.judge_file_operation(folder.session, folder.scope, info.rel, new_rel)
    return [f"{info.rel}: {v.message}" for v in decision.verdicts if v.blocking]
