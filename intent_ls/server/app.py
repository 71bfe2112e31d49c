"""Wires LSP methods to the server. Each handler: parse params → core → render.

pygls is only imported by the modules of this package; ``intent-ls serve`` imports this
module lazily, so the CLI's other verbs never pay for it.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.uris import from_fs_path

from intent_ls.server import actions, guard
from intent_ls.server.commands import COMMANDS
from intent_ls.server.config import SECTION, merged, parse_config
from intent_ls.server.server import IntentLanguageServer
from intent_ls.server.watch import Watcher

#: Seconds to wait for the client's settings before starting with the defaults.
CONFIG_TIMEOUT = 5.0


def build_server() -> IntentLanguageServer:
    server = IntentLanguageServer()
    watcher = Watcher(server)

    @server.feature(types.INITIALIZE)
    @guard.request("initialize")
    def initialize(ls: IntentLanguageServer, params: types.InitializeParams) -> None:
        ls.initial_settings = params.initialization_options
        ls.apply_config(*parse_config(ls.initial_settings))
        folders = [f.uri for f in params.workspace_folders or ()]
        if not folders and params.root_uri:
            folders = [params.root_uri]
        elif not folders and params.root_path:
            folders = [from_fs_path(params.root_path) or ""]
        for uri in folders:
            ls.add_folder(uri)

    @server.feature(types.INITIALIZED)
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
        await watcher.start()
        for folder in ls.folders:
            ls.refresh(folder)
            ls.publish_spec(folder)
            ls.send_status(folder)

    async def fetch_configuration(ls: IntentLanguageServer) -> None:
        if not get_capability(ls.client_capabilities, "workspace.configuration", False):
            return
        values = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
        if values and values[0] is not None:
            ls.apply_config(*parse_config(merged(ls.initial_settings, values[0])))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @guard.notification("reloading settings")
    async def did_change_configuration(
        ls: IntentLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and SECTION in settings:
            ls.apply_config(*parse_config(merged(ls.initial_settings, settings)))
        else:
            await fetch_configuration(ls)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: IntentLanguageServer, params: None) -> None:
        watcher.stop()
        ls.cancel_tasks()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
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

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @guard.notification("reloading the intent spec")
    def did_change_watched_files(
        ls: IntentLanguageServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        ls.refresh_all()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @guard.notification("opening a document")
    def did_open(ls: IntentLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = ls.track(item.uri, item.text, item.version)
        if ls.is_spec(doc):
            ls.evaluate(doc)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @guard.notification("checking an edit")
    def did_change(ls: IntentLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = ls.documents.get(params.text_document.uri)
        if doc is None:
            return
        doc.version = params.text_document.version
        doc.apply(
            params.content_changes,
            ls.codec,
            lambda: ls.workspace.get_text_document(doc.uri).source,
        )
        if doc.folder is not None:
            ls.current_folder = doc.folder
        ls.evaluate(doc, authorize=True)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    @guard.notification("recording a save")
    def did_save(ls: IntentLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        doc = ls.documents.get(params.text_document.uri)
        if doc is None or doc.folder is None:
            return
        if ls.is_spec(doc) or doc.uri.endswith("/.intentignore"):
            ls.refresh(doc.folder)
            return
        if not doc.governed or ls.allowed(doc):
            doc.rebase()
            ls.evaluate(doc)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guard.notification("closing a document")
    def did_close(ls: IntentLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        doc = ls.documents.pop(params.text_document.uri, None)
        if doc is None or doc.folder is None:
            return
        if ls.is_spec(doc):
            ls.publish_spec(doc.folder)
        else:
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=doc.uri, diagnostics=[])
            )

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Source]
        ),
    )
    @guard.request("listing code actions")
    def code_action(
        ls: IntentLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        return actions.code_actions(ls, params)

    for name, fn in COMMANDS.items():
        server.command(name)(fn)
    return server
