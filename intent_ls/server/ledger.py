"""The trace ledger in the editor: records on save, approval records, the index, the map.

Per workspace folder a :class:`FolderTrace` holds the ledger writer and the trace index
(with the histories of open files derived from it); the :class:`Recorder` drives them
from LSP events. What runs where (see :mod:`intent_ls.server.workers`):

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
import functools
import json
import logging
import os
import sqlite3
import uuid
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from lsprotocol import types
from pygls.capabilities import get_capability

from intent_ls.common.safe_io import (
    FileTooLargeError,
    UnsafePathError,
    open_sidecar_reader,
    read_regular,
)
from intent_ls.ledger.index import BlameEntry, DefinitionStats, TraceIndex
from intent_ls.ledger.intentmap import IntentInfo, write_intent_map
from intent_ls.ledger.journal import remove_entry
from intent_ls.ledger.records import approvals_from_records, intent_meta
from intent_ls.ledger.store import LEDGER_RELPATH, Ledger, ledger_path
from intent_ls.ledger.writers import changer_from_index
from intent_ls.policy.approvals import Approval, Contributor
from intent_ls.policy.stale import Changer
from intent_ls.policy.verdicts import GATED
from intent_ls.syntax.model import AstNode

if TYPE_CHECKING:
    from intent_ls.server.documents import TrackedDocument
    from intent_ls.server.folders import Folder
    from intent_ls.server.server import IntentLanguageServer

logger = logging.getLogger(__name__)

LEDGER_REL = LEDGER_RELPATH.as_posix()
RECORDED = "intent/recorded"
#: Seconds between retries of appends that failed.
RETRY_DELAY = 5.0
#: Newest records of an open file kept for line blame in hover.
RECENT = 50
#: Disk reads of a document stop here: well above the largest document the server tracks
#: (``documents.MAX_TRACKED_CHARS`` characters of up to 4 UTF-8 bytes each).
MAX_DISK_BYTES = 32 * 1024 * 1024


def contributor_of(ls: IntentLanguageServer) -> Contributor:
    c = ls.config.contributor
    return Contributor(c.type, c.model_id)


@attrs.frozen
class History:
    """What the analysis and hover of one open file need from its records."""

    #: Mutation records carrying a gated verdict, oldest first.
    gated: tuple[dict[str, Any], ...] = ()
    approvals: tuple[Approval, ...] = ()
    #: The newest records of the file, oldest first.
    recent: tuple[dict[str, Any], ...] = ()


@attrs.define
class _PathCache:
    seen: int = 0
    generation: int = -1
    gated: list[dict[str, Any]] = attrs.field(factory=list)
    approvals: list[Approval] = attrs.field(factory=list)
    recent: deque[dict[str, Any]] = attrs.field(factory=lambda: deque(maxlen=RECENT))
    # After a rebase the index re-numbers the records it re-read (a new ``seq`` after
    # ``seen``), so a record already loaded can come again: its id tells.
    ids: set[str] = attrs.field(factory=set)

    def frozen(self) -> History:
        return History(tuple(self.gated), tuple(self.approvals), tuple(self.recent))


def _reading(default: Any) -> Any:
    """Index reads degrade to ``default`` when the ledger or its cache cannot be read
    (the append path reports such problems to the user; a hover must not)."""

    def decorate(fn: Any) -> Any:
        @functools.wraps(fn)
        def run(self: FolderTrace, *args: Any) -> Any:
            try:
                return fn(self, *args)
            except (OSError, sqlite3.Error) as exc:
                if str(exc) != self.read_error:
                    self.read_error = str(exc)
                    logger.warning("reading the trace ledger of %s failed: %s", self.root, exc)
                return default() if callable(default) else default

        return run

    return decorate


class FolderTrace:
    """One folder's ledger and index. Thread affinity: ``append``/``retry`` on the worker
    thread, everything touching ``index`` on the index thread."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ledger = Ledger(ledger_path(root))
        self.pending: list[dict[str, Any]] = []
        #: Journal entries of pending records, by record id: removed once appended.
        self.journals: dict[str, Path] = {}
        self.index: TraceIndex | None = None
        self.generation = 0
        self._announced = 0
        self.read_error = ""
        self._paths: dict[str, _PathCache] = {}

    # -- worker thread --------------------------------------------------------------

    def append(
        self, record: dict[str, Any] | None, fsync: bool
    ) -> tuple[list[dict[str, Any]], OSError | None]:
        """Appends the records still pending from a failed attempt, then ``record``.
        Returns the records written (sealed: with ``prev``/``digest``) and the error that
        stopped the rest, which stay pending."""
        if record is not None:
            self.pending.append(record)
        self.ledger.fsync = fsync
        written: list[dict[str, Any]] = []
        try:
            while self.pending:
                written.append(self.ledger.append(self.pending[0]))
                done = self.pending.pop(0)
                entry = self.journals.pop(str(done.get("id")), None)
                if entry is not None:
                    remove_entry(entry)
        except OSError as exc:
            return written, exc
        return written, None

    # -- index thread ---------------------------------------------------------------

    @_reading(0)
    def open_index(self, progress: Any = None) -> int:
        """Builds (first time) or catches up the index; returns the records it added."""
        if self.index is None:
            self.index = TraceIndex.for_workspace(self.root, progress=progress)
        size = self._size()  # before: the index then holds at least this much
        added = self.index.refresh()
        self.generation = size
        return added

    @_reading(False)
    def refresh(self) -> bool:
        """Catches the index up; True when the ledger grew since the last call of this
        method. (Not the records this call indexed: the index cache is shared by every
        server on the workspace, and another one may have indexed them first; nor a
        change any other query already caught up with.)"""
        self.open_index()
        grew, self._announced = self.generation != self._announced, self.generation
        return grew

    def _size(self) -> int:
        try:
            return self.ledger.path.stat().st_size
        except FileNotFoundError:
            return 0

    def close(self) -> None:
        if self.index is not None:
            self.index.close()
            self.index = None

    @_reading(History)
    def history(self, rel: str) -> History:
        self.open_index()
        assert self.index is not None
        cache = self._paths.setdefault(rel, _PathCache())
        if cache.generation != self.generation:
            refs = [r for r in self.index.records_for_path(rel) if r.seq > cache.seen]
            if refs:
                refs.sort(key=lambda r: r.seq)
                for record in self._load([r.offset for r in refs]):
                    self._add(cache, record)
                cache.seen = refs[-1].seq
            cache.generation = self.generation
        return cache.frozen()

    def forget(self, rel: str) -> None:
        self._paths.pop(rel, None)

    @staticmethod
    def _add(cache: _PathCache, record: dict[str, Any]) -> None:
        if record.get("id") in cache.ids:
            return
        cache.ids.add(str(record.get("id")))
        meta = intent_meta(record)
        cache.recent.append(record)
        cache.approvals.extend(approvals_from_records([record]))
        if meta.get("kind") == "mutation" and any(
            isinstance(v, dict) and v.get("code") in GATED for v in meta.get("verdicts") or ()
        ):
            cache.gated.append(record)

    def _load(self, offsets: Sequence[int]) -> list[dict[str, Any]]:
        out = []
        with open_sidecar_reader(self.ledger.path) as f:
            for offset in offsets:
                f.seek(offset)
                try:
                    record = json.loads(f.readline())
                except ValueError:
                    continue
                if isinstance(record, dict):
                    out.append(record)
        return out

    @_reading(None)
    def changer(self, rel: str, digest: str | None) -> Changer | None:
        if digest is None:
            return None
        self.open_index()
        assert self.index is not None
        return changer_from_index(self.index, rel, digest)

    @_reading(list)
    def blame(
        self, rel: str, definition: AstNode | None, line_hash: str | None
    ) -> list[BlameEntry]:
        self.open_index()
        assert self.index is not None
        return self.index.blame(rel, definition=definition, content_hash=line_hash)

    def stats(self, rel: str, definitions: Sequence[AstNode]) -> list[DefinitionStats]:
        try:
            self.open_index()
            assert self.index is not None
            return self.index.definition_stats(rel, definitions)
        except (OSError, sqlite3.Error) as exc:
            logger.warning("reading the trace ledger of %s failed: %s", self.root, exc)
            return [DefinitionStats(0, (), None) for _ in definitions]

    @_reading(list)
    def recent_history(self, intent_id: str) -> list[dict[str, str]]:
        """The intent's last recorded mutations, for its ``<intent_context>``."""
        from intent_ls.ledger.history import recent_history

        self.open_index()
        assert self.index is not None
        return recent_history(self.index, intent_id)

    @_reading(list)
    def line_history(self, rel: str, lines: Sequence[str], line: int) -> list[dict[str, Any]]:
        """The newest records of ``rel`` whose ranges the current ``lines`` still carry on
        1-based ``line`` (wherever the block has moved), newest first."""
        from intent_ls.ledger.attribution import carried_ranges

        recent = self.history(rel).recent
        found = [
            c.record
            for c in carried_ranges(recent, rel, lines)
            if c.span.start <= line <= c.span.end
        ]
        unique = {id(r): r for r in found}
        return list(reversed(list(unique.values())))

    def write_map(self, intents: dict[str, IntentInfo]) -> bool:
        self.open_index()
        assert self.index is not None
        return write_intent_map(self.root, self.index, intents)[1]


def trace_of(folder: Folder) -> FolderTrace:
    trace = folder.trace
    if trace is None:
        trace = folder.trace = FolderTrace(folder.root)
    return trace  # type: ignore[no-any-return]


def is_ledger(doc: TrackedDocument) -> bool:
    return doc.folder is not None and doc.rel == LEDGER_REL


class Recorder:
    def __init__(self, ls: IntentLanguageServer) -> None:
        self.ls = ls
        self._map_timers: dict[str, asyncio.TimerHandle] = {}
        self._retry: dict[str, asyncio.TimerHandle] = {}
        self._failing: set[str] = set()

    # -- appending ------------------------------------------------------------------

    async def append(self, folder: Folder, record: dict[str, Any], uri: str | None = None) -> bool:
        """Appends ``record`` (e.g. an approval) on the worker; True once it is durable."""
        fsync = self.ls.config.ledger.fsync
        result = await self.ls.workers.work(trace_of(folder).append, record, fsync)
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
        pending = len(trace_of(folder).pending)
        if folder.uri not in self._failing:
            self._failing.add(folder.uri)
            self.ls.show(
                f"intent-ls ({folder.name}): cannot append to the trace ledger "
                f"({error}); {pending} record(s) kept in memory and retried",
                types.MessageType.Error,
            )
        logger.warning("ledger append failed in %s: %s", folder.root, error)
        timer = self._retry.pop(folder.uri, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._retry[folder.uri] = loop.call_later(
            RETRY_DELAY, lambda: self.ls.spawn(self._retry_now(folder))
        )

    async def _retry_now(self, folder: Folder) -> None:
        self._retry.pop(folder.uri, None)
        if trace_of(folder).pending:
            fsync = self.ls.config.ledger.fsync
            result = await self.ls.workers.work(trace_of(folder).append, None, fsync)
            await self.appended(folder, result)

    def replay(self, folder: Folder) -> None:
        """At start: the records of saves a crashed server journalled but never appended.
        Queued on the worker now, so they precede the record of any save from here on."""
        from intent_ls.server.analysis import policy_config
        from intent_ls.server.saving import replay_saves

        config = self.ls.config
        future = self.ls.workers.submit(
            replay_saves,
            trace_of(folder),
            folder.scope,
            policy_config(config, folder.scope.spec),
            config.ledger.fsync,
        )

        async def announce() -> None:
            await self.appended(folder, await asyncio.wrap_future(future))

        self.ls.spawn(announce())

    # -- derived state --------------------------------------------------------------

    async def ledger_changed(self, folder: Folder) -> None:
        """The ledger grew (our append, or another process's): catch the index up and
        re-analyse what depends on it."""
        grew = await self.ls.workers.query(trace_of(folder).refresh)
        if grew:
            self.ls.analyzer.schedule_folder(folder, delay=0)
            self.refresh_lenses()
            from intent_ls.server import stale

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
        timer = self._map_timers.pop(folder.uri, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._map_timers[folder.uri] = loop.call_later(
            self.ls.config.ledger.map_delay, lambda: self.ls.spawn(self.write_map(folder))
        )

    @staticmethod
    def intents_of(folder: Folder) -> dict[str, IntentInfo]:
        return {
            i.id: IntentInfo(i.name, i.status.value, tuple(i.patterns)) for i in folder.spec.intents
        }

    async def write_map(self, folder: Folder) -> None:
        self._map_timers.pop(folder.uri, None)
        try:
            await self.ls.workers.query(trace_of(folder).write_map, self.intents_of(folder))
        except (OSError, sqlite3.Error) as exc:
            self.ls.show(
                f"intent-ls ({folder.name}): cannot write intent_map.md: {exc}",
                types.MessageType.Warning,
            )

    def flush_timers(self) -> list[Folder]:
        """At shutdown: the folders whose map was still due (written synchronously)."""
        due = []
        for uri, timer in list(self._map_timers.items()):
            timer.cancel()
            folder = self.ls.folders.get(uri)
            if folder is not None:
                due.append(folder)
        self._map_timers.clear()
        return due

    # -- the index at start-up ------------------------------------------------------

    async def open_index(self, folder: Folder) -> None:
        """Builds or catches up the index once, with work-done progress if the client
        shows it; later queries extend it incrementally (no progress for those)."""
        trace = trace_of(folder)
        token = await self._progress_token()
        loop = asyncio.get_running_loop()
        reporting = token is not None

        def progress(done: int, total: int) -> None:
            if reporting:
                pct = int(done * 100 / total) if total else 100
                report = types.WorkDoneProgressReport(
                    message=f"{done:,} / {total:,} bytes", percentage=pct
                )
                loop.call_soon_threadsafe(self.ls.work_done_progress.report, token, report)

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
        added = 0
        try:
            added = await self.ls.workers.query(trace.open_index, progress)
        finally:
            reporting = False
            if token is not None:
                self.ls.work_done_progress.end(
                    token, types.WorkDoneProgressEnd(message=f"{added:,} record(s) indexed")
                )

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


def read_text(path: Path) -> str | None:
    """A file as an editor shows it (invalid UTF-8 replaced); None when it is absent, or
    is no text the server could track: a FIFO, device or socket (never opened blocking)
    or a file above :data:`MAX_DISK_BYTES`."""
    try:
        return read_regular(path, MAX_DISK_BYTES, follow=True).decode("utf-8-sig", "replace")
    except (FileNotFoundError, NotADirectoryError, UnsafePathError, FileTooLargeError):
        return None


def stamp_of(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino
