"""One workspace folder's trace ledger and index, as the editor reads and appends them.

A :class:`FolderTrace` holds the ledger writer and the trace index, with the histories
of open files derived from it. It knows nothing of LSP: :class:`~intent_ls.server.ledger.Recorder`
drives it from LSP events, on the threads :mod:`intent_ls.server.workers` provides
(``append`` on the worker thread, everything touching the index on the index thread).
"""

from __future__ import annotations

import functools
import json
import logging
import sqlite3
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from intent_ls.common.safe_io import open_sidecar_reader
from intent_ls.ledger.attribution import carried_ranges
from intent_ls.ledger.background import BackgroundBuild
from intent_ls.ledger.history import recent_history, tail_history
from intent_ls.ledger.index import BlameEntry, DefinitionStats, TraceIndex
from intent_ls.ledger.intentmap import IntentInfo, write_intent_map
from intent_ls.ledger.journal import remove_entry
from intent_ls.ledger.records import approvals_from_records, intent_meta
from intent_ls.ledger.store import LEDGER_RELPATH, Ledger, ledger_path
from intent_ls.ledger.tail import records_touching
from intent_ls.ledger.writers import changer_from_index, changer_from_records
from intent_ls.policy.approvals import Approval
from intent_ls.policy.rules import rule_of
from intent_ls.policy.stale import Changer
from intent_ls.syntax.model import AstNode

logger = logging.getLogger(__name__)

LEDGER_REL = LEDGER_RELPATH.as_posix()
#: Newest records of an open file kept for line blame in hover.
RECENT = 50
#: Indexing more than this many bytes (a cold build, a large pull) is left to a child
#: process: in-process it would hold the GIL for more than a few tens of milliseconds.
BACKLOG_LIMIT = 4 * 1024 * 1024
#: During a build, how far back from its end the ledger is read for a file's records.
TAIL_BYTES = 16 * 1024 * 1024
#: Records of a file read to name who wrote what is on disk (the writer is recent).
CHANGER_LIMIT = 20


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
    thread, everything touching ``index`` on the index thread.

    The index is never built or caught up at length on the index thread: when it would
    take long (:data:`BACKLOG_LIMIT`) a :class:`BackgroundBuild` does it in a child
    process, the one build every query joins, and until it is done every query answers
    at once from what is known without the index (the ledger's tail), flagged by
    :attr:`indexing`."""

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
        #: The build running now; set and cleared on the index thread only.
        self.build: BackgroundBuild | None = None
        #: Called on the index thread with each build it starts (the server follows it).
        self.on_build: Callable[[BackgroundBuild], None] | None = None
        #: A build failed: catch up in-process from now on, as without child processes.
        self._in_process = False
        #: Partial histories read from the tail during a build, by path: (ledger size, …).
        self._tails: dict[str, tuple[int, History]] = {}

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

    @property
    def indexing(self) -> str | None:
        """While a build runs: what hover, lenses and the handshake say about it."""
        build = self.build
        if build is None:
            return None
        return f"history is being indexed: {build.percent} %"

    @_reading(True)
    def settled(self) -> bool:
        """:meth:`ready`, for callers that only wait for a build: True also when the
        index cannot be read at all (there is nothing to wait for; queries say why)."""
        return self.ready()

    def ready(self) -> bool:
        """True when the index answers now (caught up, in milliseconds); otherwise makes
        sure the one build runs (starting it if needed) and returns False at once."""
        build = self.build
        if build is not None:
            if not build.finished.done():
                return False
            self.build = None
            self._tails.clear()
            if not build.finished.result():
                self._in_process = True
        if self.index is None:
            self.index = TraceIndex.for_workspace(self.root)
        if not self._in_process and not self.index.up_to_date():
            backlog = self.index.backlog()
            if (self._size() if backlog is None else backlog) > BACKLOG_LIMIT:
                self.index.close()
                self._start_build()
                return self.build is None and self.ready()
        size = self._size()  # before: the index then holds at least this much
        self.index.refresh()
        self.generation = size
        return True

    def _start_build(self) -> None:
        assert self.index is not None
        try:
            build = BackgroundBuild(self.index.ledger, self.index.cache)
        except OSError as exc:
            logger.warning("cannot start indexing %s in a child process: %s", self.root, exc)
            self._in_process = True
            return
        self.build = build
        if self.on_build is not None:
            self.on_build(build)

    @_reading(False)
    def refresh(self) -> bool:
        """Catches the index up; True when the ledger grew since the last call of this
        method. (Not the records this call indexed: the index cache is shared by every
        server on the workspace, and another one may have indexed them first; nor a
        change any other query already caught up with.) False during a build: its end
        is announced on its own."""
        if not self.ready():
            return False
        grew, self._announced = self.generation != self._announced, self.generation
        return grew

    def _size(self) -> int:
        try:
            return self.ledger.path.stat().st_size
        except FileNotFoundError:
            return 0

    def close(self) -> None:
        if self.build is not None:
            self.build.stop()
            self.build = None
        if self.index is not None:
            self.index.close()
            self.index = None

    @_reading(History)
    def history(self, rel: str) -> History:
        """The file's records; during a build, those of the ledger's tail (the approvals
        and verdicts of older records follow once it is done)."""
        if not self.ready():
            return self._tail_history(rel)
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

    def _tail_history(self, rel: str) -> History:
        size = self._size()
        known = self._tails.get(rel)
        if known is not None and known[0] == size:
            return known[1]
        found, _ = records_touching(self.ledger.path, rel, RECENT, TAIL_BYTES)
        cache = _PathCache()
        for _, record in reversed(found):
            self._add(cache, record)
        history = cache.frozen()
        self._tails[rel] = (size, history)
        return history

    def forget(self, rel: str) -> None:
        self._paths.pop(rel, None)
        self._tails.pop(rel, None)

    @staticmethod
    def _add(cache: _PathCache, record: dict[str, Any]) -> None:
        if record.get("id") in cache.ids:
            return
        cache.ids.add(str(record.get("id")))
        meta = intent_meta(record)
        cache.recent.append(record)
        cache.approvals.extend(approvals_from_records([record]))
        if meta.get("kind") == "mutation" and any(
            isinstance(v, dict) and rule_of(str(v.get("code"))).gates
            for v in meta.get("verdicts") or ()
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
        if not self.ready():
            found, _ = records_touching(self.ledger.path, rel, CHANGER_LIMIT, TAIL_BYTES)
            return changer_from_records([r for _, r in reversed(found)], rel, digest)
        assert self.index is not None
        return changer_from_index(self.index, rel, digest)

    @_reading(list)
    def blame(
        self, rel: str, definition: AstNode | None, line_hash: str | None
    ) -> list[BlameEntry] | None:
        """None during a build: hover then shows the records the tail carries."""
        if not self.ready():
            return None
        assert self.index is not None
        return self.index.blame(rel, definition=definition, content_hash=line_hash)

    def stats(self, rel: str, definitions: Sequence[AstNode]) -> list[DefinitionStats] | None:
        """None during a build: a count from part of the ledger would be a wrong count."""
        try:
            if not self.ready():
                return None
            assert self.index is not None
            return self.index.definition_stats(rel, definitions)
        except (OSError, sqlite3.Error) as exc:
            logger.warning("reading the trace ledger of %s failed: %s", self.root, exc)
            return [DefinitionStats(0, (), None) for _ in definitions]

    @_reading(lambda: ([], None))
    def recent_history(self, intent_id: str) -> tuple[list[dict[str, str]], str | None]:
        """The intent's last recorded mutations, for its ``<intent_context>``, and a note
        when that is not all of them yet. Without the index: from the ledger's tail,
        exact whenever the intent changed recently enough."""
        if self.ready():
            assert self.index is not None
            return recent_history(self.index, intent_id), None
        found, complete = tail_history(self.ledger.path, intent_id)
        return found, None if complete else self.indexing

    @_reading(list)
    def line_history(self, rel: str, lines: Sequence[str], line: int) -> list[dict[str, Any]]:
        """The newest records of ``rel`` whose ranges the current ``lines`` still carry on
        1-based ``line`` (wherever the block has moved), newest first."""
        recent = self.history(rel).recent
        found = [
            c.record
            for c in carried_ranges(recent, rel, lines)
            if c.span.start <= line <= c.span.end
        ]
        unique = {id(r): r for r in found}
        return list(reversed(list(unique.values())))

    def write_map(self, intents: dict[str, IntentInfo]) -> bool | None:
        """None during a build (the map is written once it is done)."""
        if not self.ready():
            return None
        assert self.index is not None
        return write_intent_map(self.root, self.index, intents)[1]
