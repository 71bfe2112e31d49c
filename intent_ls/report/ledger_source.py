"""A workspace's report figures, read from its spec, its ledger and its shared brain.

The ledger is read once, line by line, from a snapshot (a concurrent save never shows a
half-written line). It is also verified, and a failure is shown on the page rather than
refused: the report is how a human finds out what is on a ledger, good or bad.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import attrs

from intent_ls.ledger.records import intent_meta
from intent_ls.ledger.store import LEDGER_RELPATH, open_snapshot
from intent_ls.ledger.verify import VerifyResult, verify_ledger
from intent_ls.report.model import ApprovalRow, IntentTally, RepoTally, SpecIntent, VerdictRow
from intent_ls.spec.model import Severity
from intent_ls.workspace.brain import lessons_for, read_brain
from intent_ls.workspace.discover import Workspace

_LESSON_SECTION = re.compile(r"^## Lessons: (.+)$", re.MULTILINE)
#: From this ledger size on, verification runs in a second process beside the tally.
PARALLEL_VERIFY_BYTES = 16 * 1024 * 1024


@attrs.frozen
class _PendingVerdict:
    """A verdict waiting for the whole ledger: an approval may come any time later."""

    row: VerdictRow
    #: Content hashes an approval of this verdict may name (ranges, file, details).
    hashes: frozenset[str]
    #: Approvers the record itself lists as applied at save time.
    applied: str


def collect_workspace(root: Path, name: str | None = None) -> RepoTally:
    ws = Workspace(root)
    tally = RepoTally(name or ws.root.name, origin=str(ws.root))
    tally.declare(spec_intents(ws))
    tally.spec_problems = [
        f"{p.span.start.line + 1}:{p.span.start.column + 1}: {p.message}"
        for p in ws.spec_result().problems
        if p.severity is Severity.ERROR
    ]
    ledger = ws.root / LEDGER_RELPATH
    pending: list[_PendingVerdict] = []
    with ExitStack() as stack:
        verified = _verify_beside(ledger, stack)
        try:
            f = stack.enter_context(open_snapshot(ledger))
        except FileNotFoundError:
            f = None
        for raw in f or ():
            try:
                record = json.loads(raw)
            except (ValueError, RecursionError):
                continue  # verification names the line (nesting too deep too)
            if isinstance(record, dict):
                add_record(tally, record, pending)
        problem = verified().problem
    if problem is not None:
        tally.ledger_problem = f"line {problem.line}: {problem.reason}"
    resolve_verdicts(tally, pending)
    brain = read_brain(ws.root)
    for intent_id in dict.fromkeys(_LESSON_SECTION.findall(brain)):
        lessons = lessons_for(brain, intent_id.strip())
        if lessons:
            tally.lessons[intent_id.strip()] = lessons
            tally.intent(intent_id.strip()).lessons = lessons
    return tally


def _verify_beside(ledger: Path, stack: ExitStack) -> Callable[[], VerifyResult]:
    """``trace verify`` of the ledger, in a second process while this one tallies it when
    the ledger is big enough for that to pay (about halving a large report's time on two
    cores); the answer is the same function's either way."""
    try:
        size = ledger.stat().st_size
    except OSError:
        size = 0
    if size < PARALLEL_VERIFY_BYTES:
        result = verify_ledger(ledger)
        return lambda: result
    from concurrent.futures import ProcessPoolExecutor

    pool = stack.enter_context(ProcessPoolExecutor(max_workers=1))
    return pool.submit(verify_ledger, ledger).result


def spec_intents(ws: Workspace) -> list[SpecIntent]:
    return [
        SpecIntent(
            id=i.id,
            name=i.name,
            status=i.status.value,
            owned_scope=i.patterns,
            acceptance_criteria=i.acceptance_criteria,
            source=i.source,
        )
        for i in ws.spec().intents
    ]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _approver(value: Any) -> str:
    """An approval's ``approver`` is a contributor: its type, and its model when named."""
    who = _dict(value)
    kind = _text(who.get("type")) or "unknown"
    model = _text(who.get("model_id"))
    return f"{kind} ({model})" if model else kind


def add_record(tally: RepoTally, record: dict[str, Any], pending: list[_PendingVerdict]) -> None:
    """Counts one record. Fields are type-checked as they are read: the ledger is
    repository content, and a record a hostile commit shaped oddly must not stop the
    report (verification already says it is bad)."""
    meta = intent_meta(record)
    kind = _text(meta.get("kind")) or "foreign"
    timestamp = _text(record.get("timestamp"))
    tally.records_by_kind[kind] += 1
    if len(timestamp) >= 10:
        tally.per_day[timestamp[:10]] += 1
    intent_id = _text(meta.get("intent_id")) or None
    intent = tally.intent(intent_id)
    intent.records += 1
    files = [f for f in _list(record.get("files")) if isinstance(f, dict)]
    first_path = _text(files[0].get("path")) if files else ""
    approvals = [_dict(a) for a in _list(meta.get("approvals"))]
    if kind == "approval":
        tally.approvals.extend(_approval_rows(approvals, timestamp, intent_id or "", first_path))
    elif kind == "mutation":
        verdicts = _list(meta.get("verdicts"))
        range_hashes = _add_changes(tally, intent, files, first_path if verdicts else None)
        _add_nodes(intent, _list(meta.get("ast_nodes")))
        row = functools.partial(
            VerdictRow,
            record_id=_text(record.get("id")),
            timestamp=timestamp,
            intent_id=intent_id or "",
            path=first_path,
        )
        known = (*range_hashes, _text(meta.get("after_hash")))
        pending.extend(_pending_verdicts(verdicts, approvals, known, first_path, row))


def _add_changes(
    tally: RepoTally, intent: IntentTally, files: list[dict[str, Any]], hashes_of: str | None
) -> set[str]:
    """Counts a mutation's changed lines per file and contributor; returns the content
    hashes of the ranges in the file ``hashes_of`` (the first file, when the record has
    verdicts an approval may name them by)."""
    range_hashes: set[str] = set()
    for file in files:
        path = _text(file.get("path"))
        intent.files.add(path)
        for conv in _list(file.get("conversations")):
            if not isinstance(conv, dict):
                continue
            contributor = _dict(conv.get("contributor"))
            ctype = _text(contributor.get("type")) or "unknown"
            model = _text(contributor.get("model_id")) or None
            ranges = [r for r in _list(conv.get("ranges")) if isinstance(r, dict)]
            tally.add_lines(intent, path, ctype, model, _line_count(ranges))
            if path == hashes_of:
                range_hashes.update(_text(r.get("content_hash")) for r in ranges)
    return range_hashes


def _add_nodes(intent: IntentTally, nodes: list[Any]) -> None:
    """The definitions a mutation changed (those with a name)."""
    for node in nodes:
        if isinstance(node, dict) and isinstance(node.get("name"), str):
            intent.nodes.add((_text(node.get("path")), node["name"]))


def _approval_rows(
    approvals: list[dict[str, Any]], timestamp: str, intent_id: str, first_path: str
) -> Iterator[ApprovalRow]:
    """The approvals an approval record gives (each for its own path, else the record's)."""
    for a in approvals:
        yield ApprovalRow(
            timestamp=timestamp,
            intent_id=intent_id,
            path=_text(a.get("path")) or first_path,
            verdict_code=_text(a.get("verdict_code")),
            approver=_approver(a.get("approver")),
            reason=_text(a.get("reason")),
            content_hash=_text(a.get("content_hash")),
        )


def _pending_verdicts(
    verdicts: list[Any],
    approvals: list[dict[str, Any]],
    known: tuple[str, ...],
    first_path: str,
    row: Callable[..., VerdictRow],
) -> Iterator[_PendingVerdict]:
    """A mutation's verdicts, each with the content hashes an approval may name it by
    (``known``: its ranges' and the file's, and the one the verdict asks for) and who
    the record says approved it at save time."""
    for verdict in verdicts:
        verdict = _dict(verdict)
        code = _text(verdict.get("code"))
        wanted = _dict(_dict(verdict.get("details")).get("approval"))
        hashes = {h for h in (*known, _text(wanted.get("content_hash"))) if h}
        applied = next(
            (
                _approver(a.get("approver"))
                for a in approvals
                if a.get("verdict_code") == code and a.get("path", first_path) == first_path
            ),
            "",
        )
        yield _PendingVerdict(
            row(code=code, message=_text(verdict.get("message"))), frozenset(hashes), applied
        )


def _line_count(ranges: list[dict[str, Any]]) -> int:
    lines = 0
    for rng in ranges:
        start, end = rng.get("start_line"), rng.get("end_line")
        if type(start) is int and type(end) is int and end >= start:
            lines += end - start + 1
    return lines


def resolve_verdicts(tally: RepoTally, pending: list[_PendingVerdict]) -> None:
    """A verdict is approved when its record applied an approval at save time, or when an
    approval record of the same code and path names content the verdict was about (the
    rule ``intent-ls check`` applies, without the moved-window search)."""
    by_key: dict[tuple[str, str], list[ApprovalRow]] = {}
    for approval in tally.approvals:
        by_key.setdefault((approval.verdict_code, approval.path), []).append(approval)
    for item in pending:
        approver = item.applied or next(
            (
                a.approver
                for a in by_key.get((item.row.code, item.row.path), ())
                if a.content_hash in item.hashes
            ),
            "",
        )
        tally.verdicts.append(attrs.evolve(item.row, approver=approver))
