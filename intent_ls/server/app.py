"""Wires LSP methods to the server. Each handler: parse params → core → render.

Handlers are module-level functions (testable and readable on their own), collected by
:func:`feature` and registered on each server :func:`build_server` makes.

pygls is only imported by the modules of this package; ``intent-ls serve`` imports this
module lazily, so the CLI's other verbs never pay for it.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.uris import from_fs_path

from intent_ls.server import (
    actions,
    blame,
    destructive,
    guard,
    intent_tree,
    lifecycle,
    saving,
    stale,
)
from intent_ls.server.commands import COMMANDS
from intent_ls.server.config import SECTION, merged, parse_config
from intent_ls.server.guard import brief
from intent_ls.server.ledger import intents_of
from intent_ls.server.protocol import mirror
from intent_ls.server.server import IntentLanguageServer
from intent_ls.server.watch import Watcher
from intent_ls.workspace.setup import clone_setup_problems

#: Seconds to wait for the client's settings before starting with the defaults.
CONFIG_TIMEOUT = 5.0
#: Seconds a due intent_map.md may take at shutdown.
SHUTDOWN_WAIT = 5.0


#: (LSP method, options, handler) of every handler below, in definition order.
HANDLERS: list[tuple[str, Any, Callable[..., Any]]] = []
#: Each server's file watcher (the handlers receive only the server).
_WATCHERS: weakref.WeakKeyDictionary[IntentLanguageServer, Watcher] = weakref.WeakKeyDictionary()


def feature(method: str, options: Any = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def collect(handler: Callable[..., Any]) -> Callable[..., Any]:
        HANDLERS.append((method, options, handler))
        return handler

    return collect


def watcher_of(ls: IntentLanguageServer) -> Watcher:
    return _WATCHERS[ls]


@feature(types.INITIALIZE)
@guard.request("initialize")
def initialize(ls: IntentLanguageServer, params: types.InitializeParams) -> None:
    ls.initial_settings = params.initialization_options
    ls.client_info = params.client_info
    ls.apply_config(*parse_config(ls.initial_settings))
    folders = [f.uri for f in params.workspace_folders or ()]
    if not folders and params.root_uri:
        folders = [params.root_uri]
    elif not folders and params.root_path:
        folders = [from_fs_path(params.root_path) or ""]
    for uri in folders:
        ls.add_folder(uri)


@feature(types.INITIALIZED)
@guard.notification("starting up")
async def initialized(ls: IntentLanguageServer, params: types.InitializedParams) -> None:
    # Settings first, so the first diagnostics and status already honour them.
    try:
        await asyncio.wait_for(fetch_configuration(ls), CONFIG_TIMEOUT)
    except TimeoutError:
        ls.log("intent-ls: the client did not answer workspace/configuration in time")
    except Exception as exc:  # a refused request must not stop governance
        ls.log(f"intent-ls: could not read the client's settings ({exc}); using defaults")
    # Watch before announcing: a change made once a client has seen the status is
    # then always noticed, and one made during start-up is caught by this refresh.
    await watcher_of(ls).start()
    for folder in ls.folders:
        ls.refresh(folder)
        ls.publish_spec(folder)
        ls.send_status(folder)
    for folder in ls.folders:
        if folder.governed:
            ls.spawn(ls.recorder.open_index(folder))
    for folder in ls.folders:
        for problem in clone_setup_problems(folder.root):
            ls.show(f"intent-ls ({folder.name}): {problem}", types.MessageType.Warning)


async def fetch_configuration(ls: IntentLanguageServer) -> None:
    if not get_capability(ls.client_capabilities, "workspace.configuration", False):
        return
    values = await ls.workspace_configuration_async(
        types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
    )
    if values and values[0] is not None:
        ls.apply_config(*parse_config(merged(ls.initial_settings, values[0])))


@feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
@guard.notification("reloading settings")
async def did_change_configuration(
    ls: IntentLanguageServer, params: types.DidChangeConfigurationParams
) -> None:
    settings = params.settings
    if isinstance(settings, dict) and SECTION in settings:
        ls.apply_config(*parse_config(merged(ls.initial_settings, settings)))
    else:
        await fetch_configuration(ls)


@feature(types.SHUTDOWN)
def shutdown(ls: IntentLanguageServer, params: None) -> None:
    watcher_of(ls).stop()
    ls.cancel_tasks()
    for folder in ls.recorder.flush_timers():  # a map still due is written now
        due = ls.workers.submit_query(folder.trace.write_map, intents_of(folder))
        try:
            due.result(timeout=SHUTDOWN_WAIT)
        except Exception as exc:  # the map is derived: `intent-ls map` rebuilds it
            ls.log(f"intent-ls: intent_map.md not regenerated at shutdown: {exc!r}")
    ls.workers.shutdown()
    for folder in ls.folders:
        folder.close()


@feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
@guard.notification("updating workspace folders")
def did_change_folders(
    ls: IntentLanguageServer, params: types.DidChangeWorkspaceFoldersParams
) -> None:
    for removed in params.event.removed:
        ls.folders.remove(removed.uri)
    for added in params.event.added:
        if (folder := ls.add_folder(added.uri)) is not None:
            ls.publish_spec(folder)
            ls.send_status(folder)
    for doc in list(ls.documents.values()):
        ls.reassign(doc)


@feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@guard.notification("reloading the intent spec")
def did_change_watched_files(
    ls: IntentLanguageServer, params: types.DidChangeWatchedFilesParams
) -> None:
    ls.refresh_all()
    watcher_of(ls).changed([change.uri for change in params.changes])


@feature(types.TEXT_DOCUMENT_DID_OPEN)
@guard.notification("opening a document")
def did_open(ls: IntentLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    doc = ls.track(item.uri, item.text, item.version, item.language_id)
    if ls.is_spec(doc):
        ls.publish(doc)


@feature(types.TEXT_DOCUMENT_DID_CHANGE)
@guard.notification("checking an edit")
def did_change(ls: IntentLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    doc = ls.documents.get(params.text_document.uri)
    if doc is None:
        return
    doc.version = params.text_document.version
    document = ls.workspace.get_text_document(doc.uri)
    text, changes = doc.follow(params.content_changes, ls.codec, lambda: document.source)
    mirror(document, text, doc.version)
    if doc.tree is not None:
        doc.tree.push(changes)
    ls.analyzer.shift(doc, changes)
    stale.buffer_changed(doc)
    if doc.folder is not None:
        ls.current_folder = doc.folder
    ls.advance_turn(doc, ls.publish(doc))
    ls.analyzer.schedule(doc)


@feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
@guard.notification("recording a save")
def did_save(ls: IntentLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    doc = ls.documents.get(params.text_document.uri)
    if doc is None:
        ls.log(f"intent-ls: ignored didSave for {brief(params.text_document.uri)}: not open")
        return
    if doc.folder is None:
        return
    if ls.is_spec(doc) or doc.uri.endswith("/.intentignore"):
        ls.refresh(doc.folder)
        return
    if doc.governed and doc.rel is not None and not doc.untracked:
        saving.on_save(ls, doc)
    elif not doc.governed or ls.allowed(doc):
        doc.rebase()
        ls.publish(doc)


@feature(types.TEXT_DOCUMENT_WILL_SAVE_WAIT_UNTIL)
@guard.request("checking the file on disk before a save")
async def will_save_wait_until(
    ls: IntentLanguageServer, params: types.WillSaveTextDocumentParams
) -> list[types.TextEdit]:
    doc = ls.documents.get(params.text_document.uri)
    if doc is not None and doc.governed and doc.disk is not None:
        await stale.will_save(ls, doc, saving.approvals_of(doc))
    return []


@feature(types.TEXT_DOCUMENT_DID_CLOSE)
@guard.notification("closing a document")
def did_close(ls: IntentLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    doc = ls.documents.pop(params.text_document.uri, None)
    if doc is None:
        return
    ls.forget(doc)
    if doc.folder is None:
        return
    if ls.is_spec(doc):
        ls.publish_spec(doc.folder)
    else:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=doc.uri, diagnostics=[])
        )


@feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Source]
    ),
)
@guard.request("listing code actions")
def code_action(ls: IntentLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    return actions.code_actions(ls, params)


@feature(types.TEXT_DOCUMENT_HOVER)
@guard.request("looking up the history of a line")
async def hover(ls: IntentLanguageServer, params: types.HoverParams) -> types.Hover | None:
    return await blame.hover(ls, params)


@feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
@guard.request("computing code lenses")
async def code_lens(ls: IntentLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    return [*lifecycle.lenses(ls, params.text_document.uri), *await blame.code_lens(ls, params)]


@feature(types.WORKSPACE_WILL_DELETE_FILES, destructive.OPERATION_FILTERS)
@guard.request("checking a file deletion")
async def will_delete(
    ls: IntentLanguageServer, params: types.DeleteFilesParams
) -> types.WorkspaceEdit | None:
    await destructive.will_operate(ls, [(f.uri, None) for f in params.files], "deleting")
    return None


@feature(types.WORKSPACE_WILL_RENAME_FILES, destructive.OPERATION_FILTERS)
@guard.request("checking a file rename")
async def will_rename(
    ls: IntentLanguageServer, params: types.RenameFilesParams
) -> types.WorkspaceEdit | None:
    pairs = [(f.old_uri, f.new_uri) for f in params.files]
    await destructive.will_operate(ls, pairs, "renaming")
    return None


@feature(types.WORKSPACE_DID_DELETE_FILES, destructive.OPERATION_FILTERS)
@guard.notification("updating after a file deletion")
async def did_delete(ls: IntentLanguageServer, params: types.DeleteFilesParams) -> None:
    await destructive.did_operate(ls, [(f.uri, None) for f in params.files], "deleted")


@feature(types.WORKSPACE_DID_RENAME_FILES, destructive.OPERATION_FILTERS)
@guard.notification("updating after a file rename")
async def did_rename(ls: IntentLanguageServer, params: types.RenameFilesParams) -> None:
    pairs = [(f.old_uri, f.new_uri) for f in params.files]
    await destructive.did_operate(ls, pairs, "renamed")


@feature(intent_tree.METHOD)
@guard.request("reading the intent map")
async def intent_map(ls: IntentLanguageServer, params: Any) -> dict[str, Any]:
    return await intent_tree.intent_map(ls, params)


def build_server() -> IntentLanguageServer:
    guard.install_log_filter()
    server = IntentLanguageServer()
    _WATCHERS[server] = Watcher(server)
    for method, options, handler in HANDLERS:
        server.feature(method, options)(handler)
    for name, fn in COMMANDS.items():
        server.command(name)(fn)
    return server
