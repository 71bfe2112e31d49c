"""The language server object: all state lives here, handlers only call its methods.

State is per workspace folder (:class:`~intent_ls.server.folders.Folder`) plus the open
documents. Every path from an LSP event to the client goes through a small number of
methods here (``publish``, ``advance_turn``, ``refresh``, ``send_status``) so that "what
does the user see after X" has one answer: ``publish`` shows a document's diagnostics
(its path judged through :mod:`intent_ls.workflow`), ``advance_turn`` moves the turn
state for an edit. The features it composes see it as a
:class:`~intent_ls.server.hub.Hub` and never import this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
import time
from collections.abc import Coroutine
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from intent_ls import __version__, workflow
from intent_ls.common.uris import UriError, is_file_uri, path_of_uri, uri_to_path
from intent_ls.policy.judge import Verdict
from intent_ls.scope.conflicts import with_scope_conflicts
from intent_ls.server import append_only, diagnostics, guard, stale, status
from intent_ls.server.analyzer import Analyzer
from intent_ls.server.config import Config
from intent_ls.server.disk import DiskTracker, path_of
from intent_ls.server.documents import TrackedDocument
from intent_ls.server.folders import Folder, FolderSet
from intent_ls.server.hub import Published
from intent_ls.server.ledger import Recorder
from intent_ls.server.positions import FastCodec
from intent_ls.server.protocol import IntentProtocol
from intent_ls.server.transport import MAX_HEADER_BYTES, serve_frames
from intent_ls.server.trees import LiveTree
from intent_ls.server.workers import Workers
from intent_ls.spec.load import SpecResult, load_spec_text
from intent_ls.syntax.languages import GRAMMARS, language_for
from intent_ls.workspace.discover import EMPTY_SETTLE_NS

logger = logging.getLogger(__name__)

#: When a spec read too freshly emptied to govern is read again: a client that watches
#: files for us sends no second event when the file stays empty.
SETTLE_SECONDS = EMPTY_SETTLE_NS / 1e9 + 0.1


class IntentLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("intent-ls", __version__, protocol_cls=IntentProtocol)
        #: Why the server stopped reading its input early (a frame it refused), if it did.
        self.exit_reason: str | None = None
        self.config = Config()
        #: ``initializationOptions``: workspace/configuration values are laid over them.
        self.initial_settings: Any = None
        #: The client's ``clientInfo`` from ``initialize`` (None: it gave none).
        self.client_info: types.ClientInfo | None = None
        self.folders = FolderSet()
        self.documents: dict[str, TrackedDocument] = {}
        #: The folder of the document the user touched last: where commands without a
        #: document or folder argument apply in a multi-root window.
        self.current_folder: Folder | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.workers = Workers()
        self.recorder = Recorder(self)
        self.analyzer = Analyzer(self)
        #: File URIs a willDelete/willRename request already judged (didDelete/didRename
        #: then only update state).
        self.operations_seen: set[str] = set()
        #: When this server started: files written since are newer than any buffer an
        #: editor restored at start-up (see :meth:`DiskTracker.open`).
        self.started_ns = time.time_ns()
        self.config_problems_shown: set[str] = set()
        self._codec: FastCodec | None = None

    # -- plumbing ---------------------------------------------------------------------

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls' stdio server with our frame reader (:mod:`intent_ls.server.transport`)."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        assert isinstance(self.protocol, IntentProtocol)
        try:
            self.exit_reason = asyncio.run(
                serve_frames(
                    self._stop_event, stdin or sys.stdin.buffer, self.protocol, self.thread_pool
                )
            )
        except BrokenPipeError:
            logger.error("the client closed the connection; stopping")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self._stopped_reading()
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """pygls' TCP server (one client) with our frame reader."""
        self._stop_event = stop = threading.Event()
        assert isinstance(self.protocol, IntentProtocol)
        protocol = self.protocol

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            protocol.set_writer(writer)  # type: ignore[arg-type]
            try:
                self.exit_reason = await serve_frames(stop, reader, protocol)
                self._stopped_reading()
            finally:
                # Closing the server waits for its connections (Python >= 3.12.1), so
                # ours is closed here, after the last message, or the process never exits.
                writer.close()
                self.shutdown()

        async def serve() -> None:
            self._server = await asyncio.start_server(
                connection, host, port, limit=MAX_HEADER_BYTES
            )
            async with self._server:
                await self._server.serve_forever()

        with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
            asyncio.run(serve())

    def _stopped_reading(self) -> None:
        if self.exit_reason is None:
            return
        logger.error("stopping: %s (the input cannot be resynchronised)", self.exit_reason)
        with contextlib.suppress(OSError):  # the client may be gone already
            self.show(f"intent-ls stopped: {self.exit_reason}", types.MessageType.Error)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Runs ``coro`` as a task we keep a reference to and whose errors get logged."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                self.report_failure("a background task", t.exception())  # type: ignore[arg-type]

        task.add_done_callback(done)
        return task

    def cancel_tasks(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    def show(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def report_failure(self, what: str, exc: BaseException) -> None:
        """Logs the traceback to stderr, and tells the user in one line (never a traceback)."""
        logger.error("%s failed", what, exc_info=exc)
        self.show(f"intent-ls: {what} failed: {exc}", types.MessageType.Error)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls' last-resort hook (malformed messages and the like): one readable line."""
        if isinstance(error, guard.Answered):
            return  # an error response the client asked for, already logged in one line
        if isinstance(error, JsonRpcInvalidParams):  # a malformed notification: dropped
            logger.warning("ignored a message with invalid params: %s", guard.cut(str(error)))
            return
        logger.error("server error (%s): %s", getattr(source, "__name__", source), error)
        if getattr(source, "__name__", "") == "FeatureRequestError":
            return
        self.show(f"intent-ls: internal error: {error}", types.MessageType.Error)

    @property
    def codec(self) -> FastCodec:
        """The negotiated position encoding, converted at C speed."""
        encoding = self.workspace.position_encoding
        if self._codec is None or self._codec.encoding != encoding:
            self._codec = FastCodec(encoding)
        return self._codec

    # -- configuration ----------------------------------------------------------------

    def apply_config(self, config: Config, problem: str | None) -> None:
        if problem and problem not in self.config_problems_shown:
            # Settings arrive twice at start-up and again on every change: say it once.
            self.config_problems_shown.add(problem)
            self.show(f"intent-ls: {problem}", types.MessageType.Warning)
        changed = config != self.config
        self.config = config
        if changed:
            for folder in self.folders:
                folder.set_extra_ignores(tuple(config.extra_ignores))
                self.refresh(folder, force=True)

    # -- folders ----------------------------------------------------------------------

    def add_folder(self, uri: str) -> Folder | None:
        folder = self.folders.add(uri, self.config)
        if folder is not None and folder.restore_problem:
            self.show(f"intent-ls ({folder.name}): {folder.restore_problem}")
        if folder is not None and folder.governed:
            self.recorder.replay(folder)
        return folder

    def folder_for_uri(self, uri: str) -> Folder | None:
        if not is_file_uri(uri):
            return None
        folder = self.folders.get(uri.rstrip("/"))
        if folder is not None:
            return folder
        path = path_of_uri(uri)
        return self.folders.for_path(path) if path else None

    def refresh(self, folder: Folder, force: bool = False) -> None:
        """Reloads ``folder``'s spec and ignores; on any change re-evaluates everything."""
        changed, dropped = folder.refresh()
        if folder.workspace.settling:  # an empty spec read: look again, as a poll would
            self.spawn(self._look_again(folder))
        if not (changed or force):
            return
        if dropped:
            self.show(f"intent-ls ({folder.name}): {dropped}", types.MessageType.Warning)
        self.publish_spec(folder)
        blocked = False
        for doc in list(self.documents.values()):
            if doc.folder is folder:
                doc.info = folder.workspace.classify(path_of_uri(doc.uri) or "")
                blocked = self.publish(doc).blocked or blocked
        folder.session.settle(blocked)
        self.analyzer.schedule_folder(folder, delay=0)
        self.send_status(folder)

    async def _look_again(self, folder: Folder) -> None:
        await asyncio.sleep(SETTLE_SECONDS)
        self.refresh(folder)

    def refresh_all(self) -> None:
        for folder in self.folders:
            self.refresh(folder)

    def send_status(self, folder: Folder) -> None:
        self.protocol.notify(status.METHOD, status.payload(folder))

    # -- documents --------------------------------------------------------------------

    def track(
        self, uri: str, text: str, version: int | None, language_id: str | None = None
    ) -> TrackedDocument:
        folder = self.folder_for_uri(uri)
        if folder is None and is_file_uri(uri):
            try:
                uri_to_path(uri)
            except UriError as exc:
                self.show(f"intent-ls: {exc}; not governed", types.MessageType.Warning)
        path = path_of_uri(uri) if folder else None
        info = folder.workspace.classify(path) if folder and path else None
        doc = TrackedDocument(uri, text, folder, info)
        doc.version = version
        self.documents[uri] = doc
        if folder is not None:
            self.current_folder = folder
        if doc.governed and doc.rel is not None:
            self._follow(doc, text, language_id)
        if doc.untracked and doc.governed:
            self.log(
                f"intent-ls: {doc.rel}: line changes are not tracked because {doc.untracked}; "
                "any edit flags the whole file",
                types.MessageType.Info,
            )
        return doc

    def _follow(self, doc: TrackedDocument, text: str, language_id: str | None) -> None:
        """Sets up what a governed document needs beyond edit tracking: its syntax tree,
        its disk state and its record baseline; then the first analysis."""
        doc.language = language_for(language=language_id, path=doc.rel)
        disk_path = path_of(doc.uri)
        if disk_path is not None:
            doc.disk = DiskTracker(disk_path)
            doc.record_text = doc.disk.open(text, self.started_ns)
            if doc.disk.changed:
                stale.disk_changed_at_open(self, doc)
        else:
            doc.record_text = ""
        if doc.language in GRAMMARS and not doc.untracked:
            # Changes reach the tree already converted to code points (utf-32 columns).
            doc.tree = LiveTree(doc.language, text, "utf-32")
        self.analyzer.schedule(doc, delay=0)

    def forget(self, doc: TrackedDocument) -> None:
        self.analyzer.cancel(doc.uri)

    def reassign(self, doc: TrackedDocument) -> None:
        """Re-homes ``doc`` after folders changed, keeping its baseline and edits."""
        folder = self.folder_for_uri(doc.uri)
        path = path_of_uri(doc.uri) if folder else None
        doc.folder = folder
        doc.info = folder.workspace.classify(path) if folder and path else None
        if folder is None:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=doc.uri, diagnostics=[])
            )
        else:
            self.publish(doc)

    def is_spec(self, doc: TrackedDocument) -> bool:
        return doc.folder is not None and doc.uri == doc.folder.spec_uri

    def publish(self, doc: TrackedDocument) -> Published:
        """Publishes ``doc``'s diagnostics: the spec's problems, the ledger's, or the
        path's verdicts (through the workflow) with the analysis' findings."""
        folder = doc.folder
        if folder is None:
            return Published()
        if self.is_spec(doc):
            self.publish_spec(folder, doc)
            return Published()
        if doc.is_ledger:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=doc.uri,
                    diagnostics=append_only.diagnostics(self, doc),
                    version=doc.version,
                )
            )
            return Published()
        verdicts = self._path_verdicts(doc)
        found = diagnostics.governance(doc, verdicts, folder, self.codec, self.config)
        published = found + self.analyzer.visible(doc.extra, found) if doc.governed else found
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=doc.uri, diagnostics=published, version=doc.version)
        )
        return Published(verdicts, bool(found), doc.governed)

    def advance_turn(self, doc: TrackedDocument, published: Published) -> None:
        """Advances the turn state by an edit of ``doc`` (what ``publish`` found)."""
        folder = doc.folder
        if folder is None or not published.judged or folder.session.intent_id is None:
            return
        before = folder.session.state
        folder.session.authorize(published.verdicts if published.shown else ())
        if folder.session.state is not before:
            self.send_status(folder)

    def _path_verdicts(self, doc: TrackedDocument) -> tuple[Verdict, ...]:
        folder = doc.folder
        if folder is None or not doc.governed or doc.rel is None:
            return ()
        return workflow.judge_path(folder.session, folder.scope, doc.rel).verdicts

    def allowed(self, doc: TrackedDocument) -> bool:
        """True when the session may mutate ``doc`` now (no blocking verdict)."""
        return not any(v.blocking for v in self._path_verdicts(doc))

    def publish_spec(self, folder: Folder, doc: TrackedDocument | None = None) -> None:
        """Spec problems: from the live buffer when it is open, else from the file."""
        doc = doc or self.documents.get(folder.spec_uri)
        if doc is not None:
            source = self.workspace.get_text_document(doc.uri).source
            result = with_scope_conflicts(load_spec_text(source))
            lines: list[str] = doc.lines
        elif folder.governed:
            result, lines = folder.spec_result, folder.disk_lines
        else:
            result, lines = SpecResult(None, ()), []
        found = diagnostics.spec_problems(
            result.problems, lines, folder.spec_uri, self.codec, self.config
        )
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=folder.spec_uri, diagnostics=found)
        )
