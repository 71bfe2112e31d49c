"""Code actions: the intent handshake and scope fixes offered on our diagnostics.

Quick fixes are computed from the current spec and session rather than from the
diagnostic's ``data`` (clients may drop it), and each one lists the diagnostic it fixes
so editors can group them. The best fix carries ``isPreferred``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from intent_ls.common.safe_io import read_sidecar
from intent_ls.policy.verdicts import DESTRUCTIVE_EDIT, NO_ACTIVE_INTENT, OUT_OF_SCOPE, STALE_FILE
from intent_ls.server import destructive, stale
from intent_ls.server.diagnostics import SOURCE, to_range
from intent_ls.server.edits import document_edit, open_version
from intent_ls.server.folders import Folder
from intent_ls.spec.edit import SpecEditError, add_to_scope, glob_for_path
from intent_ls.spec.load import MAX_SPEC_BYTES
from intent_ls.spec.model import Intent

if TYPE_CHECKING:
    from intent_ls.server.server import IntentLanguageServer

SELECT_ACTIVE_TITLE = "Select active intent…"


def code_actions(
    ls: IntentLanguageServer, params: types.CodeActionParams
) -> list[types.CodeAction]:
    uri = params.text_document.uri
    doc = ls.documents.get(uri)
    folder = doc.folder if doc else ls.folder_for_uri(uri)
    if folder is None or not folder.governed:
        return []
    ls.current_folder = folder
    actions: list[types.CodeAction] = []
    rel = doc.rel if doc else None
    for diag in params.context.diagnostics:
        if diag.source != SOURCE or rel is None or doc is None:
            continue
        if diag.code == NO_ACTIVE_INTENT:
            actions += _select_fixes(folder, rel, uri, diag)
        elif diag.code == OUT_OF_SCOPE:
            actions += _scope_fixes(ls, folder, rel, uri, diag)
        elif diag.code == STALE_FILE:
            actions += stale.fixes(ls, doc, diag)
        elif diag.code == DESTRUCTIVE_EDIT:
            actions += destructive.fixes(ls, doc, diag)
    actions.append(
        types.CodeAction(
            title=SELECT_ACTIVE_TITLE,
            kind=types.CodeActionKind.Source,
            command=types.Command(
                title=SELECT_ACTIVE_TITLE, command="intent.select", arguments=[None, uri]
            ),
        )
    )
    from intent_ls.server import lifecycle  # it builds on this module's spec_text

    actions += lifecycle.actions(ls, uri, params.range)
    only = params.context.only
    if only:
        actions = [a for a in actions if any(_kind_matches(a.kind, k) for k in only)]
    return actions


def _kind_matches(kind: str | None, wanted: str) -> bool:
    return kind is not None and (kind == wanted or kind.startswith(wanted + "."))


def _select(
    intent: Intent, uri: str, title: str, diag: types.Diagnostic, preferred: bool
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag],
        is_preferred=preferred or None,
        command=types.Command(title=title, command="intent.select", arguments=[intent.id, uri]),
    )


def _select_fixes(
    folder: Folder, rel: str, uri: str, diag: types.Diagnostic
) -> list[types.CodeAction]:
    owners = [i for i in folder.scope.owners(rel) if i.selectable]
    others = [i for i in folder.spec.intents if i.selectable and i not in owners]
    return [
        _select(i, uri, f"Select intent {i.id}: {i.name}", diag, preferred=n == 0 and bool(owners))
        for n, i in enumerate([*owners, *others])
    ]


def _scope_fixes(
    ls: IntentLanguageServer, folder: Folder, rel: str, uri: str, diag: types.Diagnostic
) -> list[types.CodeAction]:
    owners = [
        i for i in folder.scope.owners(rel) if i.selectable and i.id != folder.session.intent_id
    ]
    actions = [
        _select(i, uri, f"Switch to intent {i.id}: {i.name}", diag, preferred=n == 0)
        for n, i in enumerate(owners)
    ]
    active = folder.active
    if active is not None:
        edit = scope_edit(ls, folder, active.id, rel)
        if edit is not None:
            actions.append(
                types.CodeAction(
                    title=f"Add {rel} to {active.id}'s scope",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diag],
                    is_preferred=None if owners else True,
                    edit=edit,
                )
            )
    actions.append(
        types.CodeAction(
            title="Approve out-of-scope edit",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diag],
            command=types.Command(
                title="Approve out-of-scope edit",
                command="intent.approve",
                arguments=[uri, _range_json(diag.range), OUT_OF_SCOPE],
            ),
        )
    )
    return actions


def _range_json(r: types.Range) -> dict[str, dict[str, int]]:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def spec_text(ls: IntentLanguageServer, folder: Folder) -> str:
    """The spec as the editor has it: the open buffer if any, else the file."""
    if folder.spec_uri in ls.documents:
        return ls.workspace.get_text_document(folder.spec_uri).source
    try:
        return read_sidecar(folder.workspace.spec_path, MAX_SPEC_BYTES).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecEditError(f"cannot read {folder.workspace.spec_path}: {exc}") from None


def scope_edit(
    ls: IntentLanguageServer, folder: Folder, intent_id: str, rel: str
) -> types.WorkspaceEdit | None:
    """The WorkspaceEdit adding ``rel`` to ``intent_id``'s owned_scope; None if not possible."""
    try:
        text = spec_text(ls, folder)
        edit = add_to_scope(text, intent_id, glob_for_path(rel))
    except SpecEditError:
        return None
    if edit is None:
        return None
    lines = text.splitlines()
    change = types.TextEdit(range=to_range(lines, edit.span, ls.codec), new_text=edit.new_text)
    return document_edit(ls, folder.spec_uri, open_version(ls, folder.spec_uri), [change])
