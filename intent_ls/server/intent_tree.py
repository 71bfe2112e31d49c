"""The ``intent/map`` request: the intent map of one workspace folder as data, for the
VS Code "Intents" view (intents → files → AST nodes from the ledger).

A request rather than a command: it is a read the client issues whenever a record is
announced (``intent/recorded``) or the spec changes, with a typed answer, and it must
not show up in command palettes the way ``workspace/executeCommand`` ids do.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from pygls.uris import from_fs_path

from intent_ls.ledger.index import SummaryRow
from intent_ls.ledger.maptree import intent_tree
from intent_ls.server.folders import Folder
from intent_ls.server.guard import UserError
from intent_ls.server.hub import Hub
from intent_ls.server.ledger import intents_of
from intent_ls.server.trace import FolderTrace

METHOD = "intent/map"


def _rows(trace: FolderTrace) -> list[SummaryRow]:
    return trace.index.summary() if trace.ready() and trace.index is not None else []


def _folder(ls: Hub, params: Any) -> Folder:
    uri = getattr(params, "uri", None) if params is not None else None
    if uri is not None and not isinstance(uri, str):
        raise UserError(f"{METHOD}: 'uri' must be a string")
    if uri:
        folder = ls.folder_for_uri(uri)
    else:
        folders = list(ls.folders)
        folder = folders[0] if len(folders) == 1 else ls.current_folder
    if folder is None and uri:
        raise UserError(f"{METHOD}: {uri} is not inside a workspace folder")
    if folder is None:
        raise UserError(f"{METHOD}: several workspace folders: pass the 'uri' of one")
    return folder


async def intent_map(ls: Hub, params: Any) -> dict[str, Any]:
    """``{uri?}`` (any URI inside the folder) → ``{folder, governed, intents, error?}``;
    each file carries its ``uri`` so a client can open it."""
    folder = _folder(ls, params)
    answer: dict[str, Any] = {"folder": folder.uri, "governed": folder.governed, "intents": []}
    if not folder.governed:
        return answer
    try:
        rows = await ls.workers.query(_rows, await ls.recorder.indexed(folder))
    except (OSError, sqlite3.Error) as exc:
        answer["error"] = f"cannot read the trace ledger: {exc}"
        rows = []
    intents = intent_tree(rows, intents_of(folder))
    for intent in intents:
        for entry in intent["files"]:
            entry["uri"] = from_fs_path(str(folder.root / entry["path"]))
    answer["intents"] = intents
    return answer
