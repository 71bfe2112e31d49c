"""Edits of ``active_intents.yaml`` from the editor: the spec as the editor has it, and
the WorkspaceEdit that adds a path to an intent's scope (a quick fix and the
``intent.addToScope`` command offer the same edit)."""

from __future__ import annotations

from lsprotocol import types

from intent_ls.common.safe_io import read_sidecar
from intent_ls.server.diagnostics import to_range
from intent_ls.server.edits import document_edit, open_version
from intent_ls.server.folders import Folder
from intent_ls.server.hub import Hub
from intent_ls.spec.edit import SpecEditError, add_to_scope, glob_for_path
from intent_ls.spec.load import MAX_SPEC_BYTES


def spec_text(ls: Hub, folder: Folder) -> str:
    """The spec as the editor has it: the open buffer if any, else the file."""
    if folder.spec_uri in ls.documents:
        return ls.workspace.get_text_document(folder.spec_uri).source
    try:
        return read_sidecar(folder.workspace.spec_path, MAX_SPEC_BYTES).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecEditError(f"cannot read {folder.workspace.spec_path}: {exc}") from None


def scope_edit(ls: Hub, folder: Folder, intent_id: str, rel: str) -> types.WorkspaceEdit | None:
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
