"""The trace ledger in the editor: records on save, approval records, the index, the map.

The :class:`Recorder` drives each folder's :class:`~intent_ls.server.trace.FolderTrace`
(ledger writer and trace index) from LSP events. What runs where (see
:mod:`intent_ls.server.workers`):

- on **didSave** of a governed document (:mod:`intent_ls.server.saving`) one worker job
  brings the document's tree up to the saved text, builds the record (ranges, AST nodes
  and mutation class from the live tree and the snapshot taken at the last record, so
  nothing is reparsed) and appends it through :meth:`FolderTrace.append`;
- an append that fails (disk full, permissions) keeps the record in memory, says so
  once, and is retried before the next append and every few seconds: a record is never
  given up while the server runs;
- after each append (ours, or another process's noticed through file watching or
  polling) the index catches up incrementally and open documents are re-analysed;
  ``intent_map.md`` is regenerated ``ledger.mapDelay`` seconds after our last append.

Each append is announced with an ``intent/recorded`` notification (docs/server.md).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import uuid
import weakref
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from intent_ls.ledger.background import BackgroundBuild
from intent_ls.ledger.intentmap import IntentInfo
from intent_ls.ledger.records import intent_meta
from intent_ls.server import stale
from intent_ls.server.folders import Folder
from intent_ls.server.hub import Hub
from intent_ls.server.saving import replay_saves
from intent_ls.server.timers import Timers
from intent_ls.server.trace import LEDGER_REL, FolderTrace

logger = logging.getLogger(__name__)

RECORDED = "intent/recorded"
#: Seconds between retries of appends that failed.
RETRY_DELAY = 5.0
#: Seconds between two ``$/progress`` reports of a build.
PROGRESS_EVERY = 0.5


def intents_of(folder: Folder) -> dict[str, IntentInfo]:
    """The folder's intents as the intent map shows them."""
    return {
        i.id: IntentInfo(i.name, i.status.value, tuple(i.patterns)) for i in folder.spec.intents
    }


class Recorder:
    def __init__(self, ls: Hub) -> None:
        self.ls = ls
        self._map_timers = Timers()
        self._retry = Timers()
        self._failing: set[str] = set()
        #: Folders whose map was due during a build.
        self._map_due: set[str] = set()
        self._followed: weakref.WeakSet[BackgroundBuild] = weakref.WeakSet()

    # -- appending ------------------------------------------------------------------

    async def append(self, folder: Folder, record: dict[str, Any], uri: str | None = None) -> bool:
        """Appends ``record`` (e.g. an approval) on the worker; True once it is durable."""
        fsync = self.ls.config.ledger.fsync
        result = await self.ls.workers.work(folder.trace.append, record, fsync)
        return await self.appended(folder, result, uri)

    async def appended(
        self,
        folder: Folder,
        result: tuple[list[dict[str, Any]], OSError | None],
        uri: str | None = None,
    ) -> bool:
        """Announces what was written, then reports a failure or catches up."""
        written, error = result
        for record in written:
            self._announce(folder, record, uri)
        if error is not None:
            self._failed(folder, error)
        elif folder.uri in self._failing:
            self._failing.discard(folder.uri)
            self.ls.show(f"intent-ls ({folder.name}): the trace ledger is writable again")
        if written:
            self.schedule_map(folder)
            await self.ledger_changed(folder)
        return error is None

    def _announce(self, folder: Folder, record: dict[str, Any], uri: str | None) -> None:
        meta = intent_meta(record)
        files = record.get("files") or [{}]
        self.ls.protocol.notify(
            RECORDED,
            {
                "folder": folder.uri,
                "uri": uri,
                "path": files[0].get("path"),
                "id": record.get("id"),
                "kind": meta.get("kind"),
                "intent": meta.get("intent_id"),
                "verdicts": [v.get("code") for v in meta.get("verdicts") or ()],
                "approvals": len(meta.get("approvals") or ()),
            },
        )

    def _failed(self, folder: Folder, error: OSError) -> None:
        pending = len(folder.trace.pending)
        if folder.uri not in self._failing:
            self._failing.add(folder.uri)
            self.ls.show(
                f"intent-ls ({folder.name}): cannot append to the trace ledger "
                f"({error}); {pending} record(s) kept in memory and retried",
                types.MessageType.Error,
            )
        logger.warning("ledger append failed in %s: %s", folder.root, error)
        self._retry.arm(folder.uri, RETRY_DELAY, lambda: self.ls.spawn(self._retry_now(folder)))

    async def _retry_now(self, folder: Folder) -> None:
        self._retry.ran(folder.uri)
        if folder.trace.pending:
            fsync = self.ls.config.ledger.fsync
            result = await self.ls.workers.work(folder.trace.append, None, fsync)
            await self.appended(folder, result)

    def replay(self, folder: Folder) -> None:
        """At start: the records of saves a crashed server journalled but never appended.
        Queued on the worker now, so they precede the record of any save from here on."""
        config = self.ls.config
        future = self.ls.workers.submit(
            replay_saves,
            folder.trace,
            folder.scope,
            config.policy(folder.scope.spec),
            config.ledger.fsync,
        )

        async def announce() -> None:
            await self.appended(folder, await asyncio.wrap_future(future))

        self.ls.spawn(announce())

    # -- derived state --------------------------------------------------------------

    async def ledger_changed(self, folder: Folder) -> None:
        """The ledger grew (our append, or another process's): catch the index up and
        re-analyse what depends on it."""
        grew = await self.ls.workers.query(self.follow(folder).refresh)
        if grew:
            self.ls.analyzer.schedule_folder(folder, delay=0)
            self.refresh_lenses()
            stale.ledger_grew(self.ls, folder)

    def refresh_lenses(self) -> None:
        if get_capability(
            self.ls.client_capabilities, "workspace.code_lens.refresh_support", False
        ):
            self.ls.spawn(self._refresh_lenses())

    async def _refresh_lenses(self) -> None:
        try:
            await self.ls.workspace_code_lens_refresh_async(None)
        except Exception as exc:  # a client that cannot refresh just asks again later
            logger.info("workspace/codeLens/refresh failed: %s", exc)

    def schedule_map(self, folder: Folder) -> None:
        delay = self.ls.config.ledger.map_delay
        self._map_timers.arm(folder.uri, delay, lambda: self.ls.spawn(self.write_map(folder)))

    async def write_map(self, folder: Folder) -> None:
        self._map_timers.ran(folder.uri)
        try:
            written = await self.ls.workers.query(self.follow(folder).write_map, intents_of(folder))
            if written is None:  # a build runs: the map follows its end
                self._map_due.add(folder.uri)
        except (OSError, sqlite3.Error) as exc:
            self.ls.show(
                f"intent-ls ({folder.name}): cannot write intent_map.md: {exc}",
                types.MessageType.Warning,
            )

    def flush_timers(self) -> list[Folder]:
        """At shutdown: the folders whose map was still due (written synchronously)."""
        due = (self.ls.folders.get(uri) for uri in self._map_timers.cancel_all())
        return [folder for folder in due if folder is not None]

    # -- the index at start-up ------------------------------------------------------

    async def open_index(self, folder: Folder) -> None:
        """Opens the index, or follows the one build of it (started here, or by a query
        that came first), with work-done progress if the client shows it: the share of
        the ledger read, at least every :data:`PROGRESS_EVERY` seconds. Later queries
        extend it incrementally (no progress for those)."""
        trace = self.follow(folder)
        token = await self._progress_token()
        if token is not None:
            self.ls.work_done_progress.begin(
                token,
                types.WorkDoneProgressBegin(
                    title="intent-ls: indexing the trace ledger",
                    message=f"{folder.name}/{LEDGER_REL}",
                    percentage=0,
                    cancellable=False,
                ),
            )
        message = "trace index ready"
        try:
            while not await self.ls.workers.query(trace.settled):
                build = trace.build
                if build is None:
                    continue
                finished = asyncio.wrap_future(build.finished)
                while not build.finished.done():
                    await asyncio.wait([finished], timeout=PROGRESS_EVERY)
                    if token is not None and not build.finished.done():
                        report = types.WorkDoneProgressReport(
                            message=f"{build.done:,} / {build.total:,} bytes",
                            percentage=build.percent,
                        )
                        self.ls.work_done_progress.report(token, report)
        finally:
            if token is not None:
                self.ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    def follow(self, folder: Folder) -> FolderTrace:
        """The folder's trace, with every build it starts followed to its end here."""
        trace = folder.trace
        if trace.on_build is None:
            loop = asyncio.get_running_loop()

            def started(build: BackgroundBuild) -> None:
                loop.call_soon_threadsafe(lambda: self.ls.spawn(self._built(folder, build)))

            trace.on_build = started
            # A query may have started a build before anyone listened.
            if trace.build is not None:
                started(trace.build)
        return trace

    async def indexed(self, folder: Folder) -> FolderTrace:
        """The folder's trace once its index answers (for the few callers that need all
        of the history and may wait: a command, not a keystroke or a hover)."""
        trace = self.follow(folder)
        while not await self.ls.workers.query(trace.settled):
            build = trace.build
            if build is not None:
                await asyncio.wrap_future(build.finished)
        return trace

    async def _built(self, folder: Folder, build: BackgroundBuild) -> None:
        """When a build ends, what answered without history answers again with it:
        the analyses, the lenses (the client is told to ask again), the map."""
        if build in self._followed:
            return
        self._followed.add(build)
        await asyncio.wrap_future(build.finished)
        if self.ls.workers.closed:
            return
        await self.ls.workers.query(folder.trace.settled)
        self.ls.analyzer.schedule_folder(folder, delay=0)
        self.refresh_lenses()
        stale.ledger_grew(self.ls, folder)
        if folder.uri in self._map_due:
            self._map_due.discard(folder.uri)
            self.schedule_map(folder)

    async def _progress_token(self) -> str | None:
        if not get_capability(self.ls.client_capabilities, "window.work_done_progress", False):
            return None
        token = f"intent-ls-index-{uuid.uuid4().hex[:8]}"
        try:
            await self.ls.work_done_progress.create_async(token)
        except Exception as exc:  # the client refused: index without progress
            logger.info("work-done progress refused: %s", exc)
            return None
        return token
