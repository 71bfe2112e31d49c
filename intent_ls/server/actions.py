"""Code actions: the intent handshake and scope fixes offered on our diagnostics.

Quick fixes are computed from the current spec and session rather than from the
diagnostic's ``data`` (clients may drop it), and each one lists the diagnostic it fixes
so editors can group them. The best fix carries ``isPreferred``.
"""

from __future__ import annotations

from lsprotocol import types

from intent_ls.policy.verdicts import DESTRUCTIVE_EDIT, NO_ACTIVE_INTENT, OUT_OF_SCOPE, STALE_FILE
from intent_ls.server import destructive, lifecycle, stale
from intent_ls.server.arguments import approve_action
from intent_ls.server.diagnostics import SOURCE
from intent_ls.server.folders import Folder
from intent_ls.server.hub import Hub
from intent_ls.server.spec_edits import scope_edit
from intent_ls.spec.model import Intent

SELECT_ACTIVE_TITLE = "Select active intent…"


def code_actions(ls: Hub, params: types.CodeActionParams) -> list[types.CodeAction]:
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
    ls: Hub, folder: Folder, rel: str, uri: str, diag: types.Diagnostic
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
    actions.append(approve_action("Approve out-of-scope edit", uri, diag, OUT_OF_SCOPE))
    return actions
