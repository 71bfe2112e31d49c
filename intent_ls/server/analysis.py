"""The full analysis of an open document, debounced and off the event loop.

The per-keystroke path (``server.evaluate``) publishes the scope verdicts at once. What
needs the whole text, the syntax trees or the ledger runs here, ``analysisDelay``
seconds after the last change, in two jobs: the document's history on the index thread,
then on the worker thread the tree update and one ``policy.evaluate`` call with a
:class:`~intent_ls.policy.judge.Change` (baseline → buffer, the disk state, both trees), which
yields the ``stale-file`` and ``destructive-edit`` verdicts, and
:func:`~intent_ls.ledger.attribution.open_verdicts`, which finds the verdicts of earlier saves
that are still unresolved. The results are rendered here and published together with
the scope diagnostics; while the next analysis is pending, the previous results move
with the lines edited above them.

A result is only used for the document version it was computed for.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs
from lsprotocol import types

from intent_ls.common.diff import LineSpan
from intent_ls.common.hashing import text_hash
from intent_ls.ledger.attribution import OpenVerdict, open_verdicts
from intent_ls.policy.approvals import ApprovalSet, approval_key, verdict_approval
from intent_ls.policy.judge import Change, PolicyConfig, Verdict, evaluate
from intent_ls.policy.session import Session
from intent_ls.policy.stale import DiskState
from intent_ls.policy.verdicts import DEFAULT_SEVERITY, DESTRUCTIVE_EDIT, SCOPE_CODES, STALE_FILE
from intent_ls.scope.index import ScopeIndex
from intent_ls.server.diagnostics import SOURCE, severity
from intent_ls.server.ledger import History, is_ledger, trace_of
from intent_ls.server.trees import Batch, LiveTree, Snapshot
from intent_ls.spec.model import Severity, Spec
from intent_ls.syntax.languages import GRAMMARS

if TYPE_CHECKING:
    from intent_ls.server.config import Config
    from intent_ls.server.documents import TrackedDocument
    from intent_ls.server.folders import Folder
    from intent_ls.server.server import IntentLanguageServer

_BREAK = re.compile(r"\r\n|\r|\n")


def policy_config(config: Config, spec: Spec) -> PolicyConfig:
    """The repository's policy, made stricter by the editor's own settings."""
    d = config.destructive
    return PolicyConfig.of(spec).stricter(d.max_deleted_lines, d.protected_paths)


@attrs.frozen
class Live:
    """The analysis of one document version."""

    version: int | None
    text: str
    #: ``stale-file`` and ``destructive-edit`` verdicts, approved ones included.
    verdicts: tuple[Verdict, ...]
    approvals: ApprovalSet = attrs.field(eq=False)
    open: tuple[OpenVerdict, ...] = ()
    #: Which governance baseline the verdicts are against (``doc.baseline_version``).
    baseline_version: int = 0

    def approved(self, verdict: Verdict) -> bool:
        return verdict_approval(verdict, "", self.approvals) is not None

    def unapproved(self, code: str | None = None) -> list[Verdict]:
        return [
            v for v in self.verdicts if not self.approved(v) and (code is None or v.code == code)
        ]


@attrs.frozen
class _Inputs:
    rel: str
    text: str
    baseline: str | None
    language: str | None
    tree: LiveTree | None
    batch: Batch | None
    disk: DiskState | None
    session: Session
    scope: ScopeIndex
    config: PolicyConfig
    history: History
    covered: frozenset[str]
    version: int | None
    baseline_version: int


def _compute(inputs: _Inputs) -> Live:
    """Worker thread: trees up to date, then the policy and the ledger's open verdicts."""
    new_syntax = old_syntax = None
    tree = inputs.tree
    if tree is not None and inputs.batch is not None:
        new_syntax = tree.apply(inputs.batch, inputs.text)
        if inputs.baseline is not None:
            old_syntax = tree.tree_for(tree.governance, inputs.baseline)
            if old_syntax is None:
                if inputs.baseline == inputs.text:
                    tree.governance = tree.current(inputs.text)
                else:
                    from intent_ls.syntax.document import DocumentSyntax

                    parsed = DocumentSyntax.parse(inputs.baseline, tree.language)
                    tree.governance = Snapshot(inputs.baseline, parsed)
                old_syntax = tree.tree_for(tree.governance, inputs.baseline)
        new_syntax = new_syntax.copy()
    baseline = inputs.baseline if inputs.baseline is not None else inputs.text
    verdicts = evaluate(
        inputs.session,
        inputs.scope,
        inputs.rel,
        Change(baseline, inputs.text, inputs.language, inputs.disk, old_syntax, new_syntax),
        config=inputs.config,
    )
    approvals = ApprovalSet(inputs.history.approvals)
    hashes: frozenset[str] = frozenset()
    if new_syntax is not None and any(
        v.get("code") == DESTRUCTIVE_EDIT
        for r in inputs.history.gated
        for v in r.get("metadata", {}).get("intent_ls", {}).get("verdicts") or ()
    ):
        hashes = frozenset(n.content_hash for n in new_syntax.definitions())
    found = open_verdicts(
        inputs.history.gated,
        inputs.rel,
        inputs.text,
        approvals=approvals,
        covered=inputs.covered,
        definition_hashes=hashes,
    )
    return Live(
        inputs.version,
        inputs.text,
        tuple(v for v in verdicts if v.code in (STALE_FILE, DESTRUCTIVE_EDIT)),
        approvals,
        tuple(found),
        inputs.baseline_version,
    )


#: Seconds without a change after which an open document's tree is reparsed whole
#: (:meth:`LiveTree.settle`), so that edits do not pile up for local parses.
SETTLE_DELAY = 1.0


class Analyzer:
    def __init__(self, ls: IntentLanguageServer) -> None:
        self.ls = ls
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._settle: dict[str, asyncio.TimerHandle] = {}
        self._running: set[str] = set()
        self._again: set[str] = set()

    # -- scheduling -------------------------------------------------------------------

    @staticmethod
    def analysable(doc: TrackedDocument) -> bool:
        return doc.governed and doc.rel is not None and not is_ledger(doc)

    def schedule(self, doc: TrackedDocument, delay: float | None = None) -> None:
        if not self.analysable(doc):
            return
        timer = self._timers.pop(doc.uri, None)
        if timer is not None:
            timer.cancel()
        self._cancel_settle(doc.uri)
        wait = self.ls.config.analysis_delay if delay is None else delay
        loop = asyncio.get_running_loop()
        self._timers[doc.uri] = loop.call_later(
            wait, lambda uri=doc.uri: self.ls.spawn(self._run(uri))
        )

    def schedule_folder(self, folder: Folder, delay: float | None = None) -> None:
        for doc in list(self.ls.documents.values()):
            if doc.folder is folder:
                self.schedule(doc, delay)

    def cancel(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._cancel_settle(uri)

    def _cancel_settle(self, uri: str) -> None:
        timer = self._settle.pop(uri, None)
        if timer is not None:
            timer.cancel()

    def _arm_settle(self, doc: TrackedDocument) -> None:
        """After a pause, the whole tree is reparsed on the worker: the one GIL-holding
        parse of a large file happens while nobody types or saves."""
        self._cancel_settle(doc.uri)
        if doc.tree is None:
            return
        loop = asyncio.get_running_loop()
        self._settle[doc.uri] = loop.call_later(SETTLE_DELAY, self._settle_now, doc)

    def _settle_now(self, doc: TrackedDocument) -> None:
        self._settle.pop(doc.uri, None)
        tree = doc.tree
        if tree is None or self.ls.documents.get(doc.uri) is not doc:
            return
        text = self.ls.workspace.get_text_document(doc.uri).source
        self.ls.workers.submit(tree.settle, tree.take(), text)

    async def _run(self, uri: str) -> None:
        self._timers.pop(uri, None)
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
                history = await self.ls.workers.query(trace_of(doc.folder).history, doc.rel)
                if self.ls.documents.get(uri) is not doc:
                    return
                doc.history = history
                live = await self.ls.workers.work(_compute, self._inputs(doc, history, True))
                if self.ls.documents.get(uri) is not doc:
                    return
                if live.version == doc.version:
                    self._apply(doc, live)
                if uri not in self._again:
                    self._arm_settle(doc)
                    return
        finally:
            self._running.discard(uri)

    def _inputs(self, doc: TrackedDocument, history: History, with_disk: bool) -> _Inputs:
        folder = doc.folder
        assert folder is not None and doc.rel is not None
        text = self.ls.workspace.get_text_document(doc.uri).source
        tree = doc.tree
        session = folder.session
        covered: frozenset[str] = frozenset()
        if session.intent_id is not None and folder.scope.owns(session.intent_id, doc.rel):
            covered = SCOPE_CODES
        return _Inputs(
            rel=doc.rel,
            text=text,
            baseline=None if doc.untracked else "".join(doc.baseline),
            language=doc.language,
            tree=tree,
            batch=tree.take() if tree is not None else None,
            disk=doc.disk.state() if with_disk and doc.disk is not None else None,
            session=attrs.evolve(session),
            scope=folder.scope,
            config=policy_config(self.ls.config, folder.scope.spec),
            history=history,
            covered=covered,
            version=doc.version,
            baseline_version=doc.baseline_version,
        )

    # -- rendering --------------------------------------------------------------------

    def _apply(self, doc: TrackedDocument, live: Live) -> None:
        from intent_ls.server import stale

        doc.live = live
        extra = self.render(doc, live)
        if extra != doc.extra:  # nothing new: nothing to publish
            doc.extra = extra
            self.ls.evaluate(doc)
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
            if found.code == STALE_FILE and any(c == STALE_FILE for c, _ in shown):
                continue
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
    ls: IntentLanguageServer,
    lines: Sequence[str],
    span: LineSpan,
    code: str,
    message: str,
    config: Config,
    data: dict[str, Any],
) -> types.Diagnostic | None:
    level = severity(code, DEFAULT_SEVERITY.get(code, Severity.ERROR), config)
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


def has_grammar(language: str | None) -> bool:
    return language in GRAMMARS


def buffer_hash(ls: IntentLanguageServer, doc: TrackedDocument) -> str:
    return text_hash(ls.workspace.get_text_document(doc.uri).source)
