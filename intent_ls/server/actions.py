"""Code actions: the intent handshake and scope fixes offered on our diagnostics.

Quick fixes are computed from the current spec and session rather than from the
diagnostic's ``data`` (clients may drop it), and each one lists the diagnostic it fixes
so editors can group them. The best fix carries ``isPreferred``.
"""

from __future__ import annotations

from lsprotocol import types

from intent_ls.policy.rules import rule_of
from intent_ls.policy.rules.rule import Fixes, Rule
from intent_ls.server import destructive, lifecycle, stale
from intent_ls.server.arguments import approve_action
from intent_ls.server.diagnostics import SOURCE
from intent_ls.server.documents import TrackedDocument
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
        if diag.source == SOURCE and rel is not None and doc is not None:
            actions += _fixes(ls, folder, doc, rel, diag)
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


def _fixes(
    ls: Hub, folder: Folder, doc: TrackedDocument, rel: str, diag: types.Diagnostic
) -> list[types.CodeAction]:
    """The quick fixes the diagnostic's rule offers."""
    rule = rule_of(str(diag.code))
    fixes = rule.fixes
    if fixes is Fixes.SELECT_INTENT:
        return _select_fixes(folder, rel, doc.uri, diag)
    if fixes is Fixes.SWITCH_OR_WIDEN:
        return _scope_fixes(ls, folder, rel, doc.uri, diag, rule)
    if fixes is Fixes.RELOAD_OR_KEEP:
        return stale.fixes(ls, doc, diag)
    if fixes is Fixes.RESTORE_OR_APPROVE:
        return destructive.fixes(ls, doc, diag)
    if rule.approvable:
        key = ((diag.data or {}).get("approval") or {}) if isinstance(diag.data, dict) else {}
        return [approve_action(rule.quick_fix, doc.uri, diag, rule.code, key.get("content_hash"))]
    return []


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
    ls: Hub, folder: Folder, rel: str, uri: str, diag: types.Diagnostic, rule: Rule
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
    actions.append(approve_action(rule.quick_fix, uri, diag, rule.code))
    return actions
