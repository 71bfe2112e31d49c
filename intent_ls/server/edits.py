"""WorkspaceEdits pinned to the document version they were computed for.

A plain ``changes`` map says nothing about which text an edit was made for, so a client
applies it to whatever the buffer holds by then: an edit of a few lines computed for an
older buffer lands on the wrong ones. Where the client supports ``documentChanges`` an
edit the server sends is a ``TextDocumentEdit`` carrying the version of the text it was
computed from (the one the client last sent), so the client refuses it once the buffer
has moved on. The version is ``None`` for a file the editor does not have open (the
disk content is the master), and for "Reload from disk" in a client that may revert the
buffer while applying it (:func:`intent_ls.server.stale.reload_buffer`).
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException

from intent_ls.server.hub import Hub

#: Clients, by their ``clientInfo`` name, whose editor may revert a buffer while applying
#: a workspace edit to it: Emacs asks "changed on disk; discard your edits?" before it
#: edits a modified buffer whose file changed, and yes re-opens the document at a new
#: version. eglot names itself "Eglot" (since 1.10; before, it gives no clientInfo) and
#: lsp-mode "emacs".
REVERTING_CLIENTS = frozenset({"Eglot", "emacs"})


def may_revert_while_applying(ls: Hub) -> bool:
    """Whether an edit to a buffer whose file changed on disk may meet the disk text
    instead: in Emacs, or in a client that does not name itself (it may be an eglot that
    predates ``clientInfo``). Editors that name themselves otherwise (VS Code, Neovim,
    Helix, Zed, Kate, Sublime LSP) apply an edit to the buffer as it is."""
    info = ls.client_info
    return info is None or info.name in REVERTING_CLIENTS


def versioned_edits(ls: Hub) -> bool:
    return bool(
        get_capability(ls.client_capabilities, "workspace.workspace_edit.document_changes", False)
    )


def document_edit(
    ls: Hub,
    uri: str,
    version: int | None,
    edits: Sequence[types.TextEdit],
) -> types.WorkspaceEdit:
    """One document's edits, as a versioned ``TextDocumentEdit`` when the client can."""
    if not versioned_edits(ls):
        return types.WorkspaceEdit(changes={uri: list(edits)})
    identifier = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    return types.WorkspaceEdit(
        document_changes=[types.TextDocumentEdit(text_document=identifier, edits=list(edits))]
    )


def open_version(ls: Hub, uri: str) -> int | None:
    """The version of ``uri``'s buffer if the editor has it open, else None (disk text)."""
    doc = ls.documents.get(uri)
    return doc.version if doc is not None else None


async def apply(ls: Hub, edit: types.WorkspaceEdit, label: str) -> str | None:
    """Asks the client to apply ``edit``; None once it did, else why it did not."""
    try:
        response = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label=label)
        )
    except JsonRpcException as exc:  # e.g. eglot refusing an edit for another version
        return exc.message or str(exc)
    if not (response and response.applied):
        return (response.failure_reason if response else None) or "the editor refused it"
    return None
