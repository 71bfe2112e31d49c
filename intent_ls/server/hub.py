"""The language server as its features see it: what a handler's ``ls`` offers.

The server object (:class:`~intent_ls.server.server.IntentLanguageServer`) owns the
state and composes the features; the features (stale buffers, saving, approvals, the
ledger, commands, code actions, …) take a :class:`Hub`. So the imports run one way:
``server`` imports the features, the features import this module and the state below
it (folders, documents, config), and no feature imports ``server``. ``app`` wires the
LSP methods to the features.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Protocol

import attrs
from lsprotocol import types
from pygls.progress import Progress
from pygls.protocol import LanguageServerProtocol
from pygls.workspace import Workspace

from intent_ls.policy.judge import Verdict
from intent_ls.server.config import Config
from intent_ls.server.documents import TrackedDocument
from intent_ls.server.folders import Folder, FolderSet
from intent_ls.server.positions import FastCodec
from intent_ls.server.trace import FolderTrace
from intent_ls.server.workers import Workers


@attrs.frozen
class Published:
    """What publishing a document's diagnostics found: its path's verdicts (when its
    path was judged) and whether governance diagnostics were shown for them."""

    verdicts: tuple[Verdict, ...] = ()
    shown: bool = False
    #: Whether the document's path was judged (a governed document's).
    judged: bool = False

    @property
    def blocked(self) -> bool:
        """A blocking verdict was published (what typing would turn into BLOCKED)."""
        return self.shown and any(v.blocking for v in self.verdicts)


class Records(Protocol):
    """The ledger side (:class:`~intent_ls.server.ledger.Recorder`), as features use it."""

    def follow(self, folder: Folder) -> FolderTrace: ...

    async def indexed(self, folder: Folder) -> FolderTrace: ...

    async def append(
        self, folder: Folder, record: dict[str, Any], uri: str | None = None
    ) -> bool: ...

    async def appended(
        self,
        folder: Folder,
        result: tuple[list[dict[str, Any]], OSError | None],
        uri: str | None = None,
    ) -> bool: ...

    async def ledger_changed(self, folder: Folder) -> None: ...


class Analyses(Protocol):
    """The debounced analysis (:class:`~intent_ls.server.analyzer.Analyzer`)."""

    def schedule(self, doc: TrackedDocument, delay: float | None = None) -> None: ...

    def schedule_folder(self, folder: Folder, delay: float | None = None) -> None: ...


class Hub(Protocol):
    # -- state ------------------------------------------------------------------------
    config: Config
    folders: FolderSet
    documents: dict[str, TrackedDocument]
    #: The folder of the document the user touched last.
    current_folder: Folder | None
    client_info: types.ClientInfo | None
    workers: Workers
    #: File URIs a willDelete/willRename request already judged.
    operations_seen: set[str]

    @property
    def recorder(self) -> Records: ...

    @property
    def analyzer(self) -> Analyses: ...

    @property
    def codec(self) -> FastCodec: ...

    # -- what every event ends in -----------------------------------------------------
    def folder_for_uri(self, uri: str) -> Folder | None: ...

    def refresh(self, folder: Folder, force: bool = False) -> None: ...

    def refresh_all(self) -> None: ...

    def publish(self, doc: TrackedDocument) -> Published: ...

    def advance_turn(self, doc: TrackedDocument, published: Published) -> None: ...

    def send_status(self, folder: Folder) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]: ...

    def show(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None: ...

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None: ...

    def report_failure(self, what: str, exc: BaseException) -> None: ...

    # -- the client (pygls) -----------------------------------------------------------
    @property
    def workspace(self) -> Workspace: ...

    @property
    def client_capabilities(self) -> types.ClientCapabilities: ...

    @property
    def protocol(self) -> LanguageServerProtocol: ...

    @property
    def work_done_progress(self) -> Progress: ...

    async def window_show_message_request_async(
        self, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None: ...

    async def workspace_apply_edit_async(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult: ...

    async def workspace_code_lens_refresh_async(self, params: None) -> None: ...

    async def client_register_capability_async(self, params: types.RegistrationParams) -> None: ...
