"""Analysing open documents: debounced, off the event loop, rendered as diagnostics.

The per-keystroke path (``server.publish``) publishes the scope verdicts at once. What
needs the whole text, the syntax trees or the ledger runs ``analysisDelay`` seconds
after the last change, in two jobs: the document's history on the index thread, then
:func:`~intent_ls.server.analysis.compute` on the worker thread. The results are
rendered here and published together with the scope diagnostics; while the next
analysis is pending, the previous results move with the lines edited above them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import attrs
from lsprotocol import types

from intent_ls.common.diff import LineSpan
from intent_ls.policy.approvals import approval_key
from intent_ls.policy.rules import SCOPE_CODES, rule_of
from intent_ls.policy.rules.rule import Anchor
from intent_ls.server import stale
from intent_ls.server.analysis import Inputs, Live, compute
from intent_ls.server.config import Config
from intent_ls.server.diagnostics import SOURCE, severity
from intent_ls.server.documents import TrackedDocument
from intent_ls.server.folders import Folder
from intent_ls.server.hub import Hub
from intent_ls.server.timers import Timers
from intent_ls.server.trace import History

_BREAK = re.compile(r"\r\n|\r|\n")

#: Seconds without a change after which an open document's tree is reparsed whole
#: (:meth:`LiveTree.settle`), so that edits do not pile up for local parses.
SETTLE_DELAY = 1.0


class Analyzer:
    def __init__(self, ls: Hub) -> None:
        self.ls = ls
        self._timers = Timers()
        self._settle = Timers()
        self._running: set[str] = set()
        self._again: set[str] = set()

    # -- scheduling -------------------------------------------------------------------

    @staticmethod
    def analysable(doc: TrackedDocument) -> bool:
        return doc.governed and doc.rel is not None and not doc.is_ledger

    def schedule(self, doc: TrackedDocument, delay: float | None = None) -> None:
        if not self.analysable(doc):
            return
        self._settle.cancel(doc.uri)
        wait = self.ls.config.analysis_delay if delay is None else delay
        self._timers.arm(doc.uri, wait, lambda uri=doc.uri: self.ls.spawn(self._run(uri)))

    def schedule_folder(self, folder: Folder, delay: float | None = None) -> None:
        for doc in list(self.ls.documents.values()):
            if doc.folder is folder:
                self.schedule(doc, delay)

    def cancel(self, uri: str) -> None:
        self._timers.cancel(uri)
        self._settle.cancel(uri)

    def _arm_settle(self, doc: TrackedDocument) -> None:
        """After a pause, the whole tree is reparsed on the worker: the one GIL-holding
        parse of a large file happens while nobody types or saves."""
        self._settle.cancel(doc.uri)
        if doc.tree is not None:
            self._settle.arm(doc.uri, SETTLE_DELAY, self._settle_now, doc)

    def _settle_now(self, doc: TrackedDocument) -> None:
        self._settle.ran(doc.uri)
        tree = doc.tree
        if tree is None or self.ls.documents.get(doc.uri) is not doc:
            return
        text = self.ls.workspace.get_text_document(doc.uri).source
        self.ls.workers.submit(tree.settle, tree.take(), text)

    async def _run(self, uri: str) -> None:
        self._timers.ran(uri)
        if uri in self._running:
            self._again.add(uri)
            return
        self._running.add(uri)
        try:
            while True:
                self._again.discard(uri)
                doc = self.ls.documents.get(uri)
                if doc is None or not self.analysable(doc) or doc.folder is None:
                    return
                history = await self.ls.workers.query(
                    self.ls.recorder.follow(doc.folder).history, doc.rel
                )
                if self.ls.documents.get(uri) is not doc:
                    return
                doc.history = history
                live = await self.ls.workers.work(compute, self._inputs(doc, history, True))
                if self.ls.documents.get(uri) is not doc:
                    return
                if live.version == doc.version:
                    self._apply(doc, live)
                if uri not in self._again:
                    self._arm_settle(doc)
                    return
        finally:
            self._running.discard(uri)

    def _inputs(self, doc: TrackedDocument, history: History, with_disk: bool) -> Inputs:
        folder = doc.folder
        assert folder is not None and doc.rel is not None
        text = self.ls.workspace.get_text_document(doc.uri).source
        tree = doc.tree
        session = folder.session
        covered: frozenset[str] = frozenset()
        if session.intent_id is not None and folder.scope.owns(session.intent_id, doc.rel):
            covered = SCOPE_CODES  # the active intent owns the file
        return Inputs(
            rel=doc.rel,
            text=text,
            baseline=None if doc.untracked else "".join(doc.baseline),
            language=doc.language,
            tree=tree,
            batch=tree.take() if tree is not None else None,
            disk=doc.disk.state() if with_disk and doc.disk is not None else None,
            session=session.copy(),
            scope=folder.scope,
            config=self.ls.config.policy(folder.scope.spec),
            history=history,
            covered=covered,
            version=doc.version,
            baseline_version=doc.baseline_version,
        )

    # -- rendering --------------------------------------------------------------------

    def _apply(self, doc: TrackedDocument, live: Live) -> None:
        doc.live = live
        extra = self.render(doc, live)
        if extra != doc.extra:  # nothing new: nothing to publish
            doc.extra = extra
            self.ls.publish(doc)
        stale.check_reload(self.ls, doc)

    def render(self, doc: TrackedDocument, live: Live) -> list[types.Diagnostic]:
        config, lines = self.ls.config, doc.lines
        out: list[types.Diagnostic] = []
        shown: set[tuple[str, str]] = set()
        for verdict in live.unapproved():
            key = approval_key(verdict) or ""
            shown.add((verdict.code, key))
            finding = verdict.finding
            anchor = getattr(finding, "anchor", None)
            span = anchor if isinstance(anchor, LineSpan) else LineSpan(1, 1)
            diag = _diagnostic(
                self.ls,
                lines,
                span,
                verdict.code,
                verdict.message,
                config,
                {"path": doc.rel, "approval": verdict.details.get("approval")},
            )
            if diag is not None:
                out.append(diag)
        for found in live.open:
            if (found.code, found.approval.get("content_hash")) in shown:
                continue
            if rule_of(found.code).anchor is Anchor.OVERWRITTEN and any(
                c == found.code for c, _ in shown
            ):
                continue  # the live verdict says it already
            message = (
                f"{found.message} (saved {_when(found.timestamp)} and not resolved; "
                f"trace record {found.record_id[:8]})"
            )
            diag = _diagnostic(
                self.ls,
                lines,
                found.span,
                found.code,
                message,
                config,
                {"path": doc.rel, "approval": found.approval, "record": found.record_id},
            )
            if diag is not None:
                out.append(diag)
        return out

    @staticmethod
    def visible(
        extra: Sequence[types.Diagnostic], live: Sequence[types.Diagnostic]
    ) -> list[types.Diagnostic]:
        """``extra`` minus the recorded verdicts the live edit tracking already shows."""
        out = []
        for diag in extra:
            data = diag.data if isinstance(diag.data, dict) else {}
            if data.get("record") and any(
                d.code == diag.code
                and d.range.start.line <= diag.range.end.line
                and diag.range.start.line <= d.range.end.line
                for d in live
            ):
                continue
            out.append(diag)
        return out

    @staticmethod
    def shift(
        doc: TrackedDocument, changes: Sequence[types.TextDocumentContentChangeEvent]
    ) -> None:
        """Moves the last results with lines inserted or deleted above them."""
        if not doc.extra:
            return
        for change in changes:
            if not isinstance(change, types.TextDocumentContentChangePartial):
                return
            first, last = change.range.start.line, change.range.end.line
            delta = len(_BREAK.findall(change.text)) - (last - first)
            if delta == 0:
                continue
            moved = []
            for diag in doc.extra:
                start, end = diag.range.start, diag.range.end
                if start.line > last:
                    start = types.Position(start.line + delta, start.character)
                    end = types.Position(end.line + delta, end.character)
                elif end.line > last:
                    end = types.Position(max(start.line, end.line + delta), end.character)
                moved.append(attrs.evolve(diag, range=types.Range(start=start, end=end)))
            doc.extra = moved


def _when(timestamp: str | None) -> str:
    if not timestamp:
        return "earlier"
    return re.sub(r"\.\d+Z$", "Z", timestamp)


def _diagnostic(
    ls: Hub,
    lines: Sequence[str],
    span: LineSpan,
    code: str,
    message: str,
    config: Config,
    data: dict[str, Any],
) -> types.Diagnostic | None:
    level = severity(code, rule_of(code).severity, config)
    if level is None:
        return None
    last = max(len(lines) - 1, 0)
    first_line = min(span.start - 1, last)
    end_line = min(max(span.end - 1, first_line), last)
    text = lines[end_line].rstrip("\r\n") if lines else ""
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=first_line, character=0),
            end=types.Position(line=end_line, character=ls.codec.client_num_units(text)),
        ),
        message=message,
        severity=level,
        code=code,
        source=SOURCE,
        data=data,
    )
