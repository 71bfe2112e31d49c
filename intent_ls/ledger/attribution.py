"""What the ledger says about a file's lines as they are now.

Two questions a front door asks about the current text of a file, answered from the
ledger records that touched it (passed in, oldest first; nothing here reads a file):

- **which recorded ranges the file still carries** (:func:`carried_ranges`): a range is
  found again by its ``content_hash``, first where the record put it, then at the nearest
  position where a block of the same length has the same hash (code moves when lines
  are inserted above it). Positions are never trusted, hashes are.
- **which gated verdicts saved into the file are still open** (:func:`open_verdicts`):
  "saving does not absolve". A verdict of code ``out-of-scope``, ``no-active-intent``,
  ``destructive-edit`` or ``stale-file`` recorded in a mutation record stays open until

  * **approved**: by the rule of :func:`intent_ls.policy.approvals.recorded_approval`
    (the one ``intent-ls check`` follows too), from the given approvals (the ledger's
    approval records) and those the record lists;
  * **reverted**: scope verdicts, when the file no longer carries the record's range;
    a destructive edit, when the destroyed content is back (a definition with the
    deleted definition's hash, a block of lines with the deleted block's hash, or the
    whole file's old content); a stale overwrite, when the file again holds the content
    that was overwritten;
  * **covered** (scope verdicts only): while the caller says so, i.e. while the active
    intent owns the file.

A save that only deleted lines leaves no range to find; its scope verdicts are not
found again (destructive ones are: they are keyed on what was destroyed).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from intent_ls.common.diff import LineSpan
from intent_ls.common.equality import compared_without
from intent_ls.common.hashing import content_hash, text_hash
from intent_ls.ledger.records import approvals_from_records, intent_meta
from intent_ls.policy.approvals import (
    Approval,
    ApprovalSet,
    approval_key,
    approval_request,
    recorded_approval,
)
from intent_ls.policy.rules import rule_of
from intent_ls.policy.rules.rule import Anchor

#: Lines hashed at most per call when looking for ranges away from their recorded place
#: (every window of a range's length is hashed once per length).
SEARCH_BUDGET = 300_000


class CarriedRange(NamedTuple):
    """A record's range found in the current text: ``span`` now, ``recorded`` as saved."""

    span: LineSpan
    recorded: LineSpan
    content_hash: str
    record: dict[str, Any]

    __eq__, __ne__, __hash__ = compared_without("record")


class OpenVerdict(NamedTuple):
    """A recorded verdict still open, placed on the current text (1-based lines)."""

    code: str
    message: str
    span: LineSpan
    #: The approval that resolves it: ``verdict_code``, ``path``, ``start_line``,
    #: ``end_line``, ``content_hash`` (what ``intent.approve`` records).
    approval: dict[str, Any]
    record_id: str
    timestamp: str | None
    details: Mapping[str, Any] = MappingProxyType({})

    __eq__, __ne__, __hash__ = compared_without("approval", "details")


class Locator:
    """Finds blocks of lines by content hash in one text; reuse it for one text only."""

    def __init__(self, lines: Sequence[str], budget: int = SEARCH_BUDGET) -> None:
        self.lines = lines
        self._tables: dict[int, dict[str, list[int]] | None] = {}
        self._budget = budget

    def at(self, start: int, end: int, digest: str) -> bool:
        return 1 <= start <= end <= len(self.lines) and (
            content_hash(self.lines[start - 1 : end]) == digest
        )

    def find(self, start: int, end: int, digest: str) -> LineSpan | None:
        """Where the block recorded at ``start..end`` with hash ``digest`` is now: there
        if it still matches, else the nearest block of the same length that does."""
        if self.at(start, end, digest):
            return LineSpan(start, end)
        length = end - start + 1
        table = self._table(length)
        positions = table.get(digest) if table else None
        if not positions:
            return None
        best = min(positions, key=lambda p: (abs(p + 1 - start), p))
        return LineSpan(best + 1, best + length)

    def contains(self, length: int, digest: str) -> bool:
        table = self._table(length)
        return bool(table and digest in table)

    def _table(self, length: int) -> dict[str, list[int]] | None:
        if length in self._tables:
            return self._tables[length]
        count = len(self.lines) - length + 1
        table: dict[str, list[int]] | None = None
        if length > 0 and count > 0 and count * length <= self._budget:
            self._budget -= count * length
            table = defaultdict(list)
            for i in range(count):
                table[content_hash(self.lines[i : i + length])].append(i)
        self._tables[length] = table
        return table


def file_ranges(record: dict[str, Any], rel: str) -> list[dict[str, Any]]:
    """The ranges a record gives for ``rel`` (well-formed ones only)."""
    out = []
    for file in record.get("files") or ():
        if not isinstance(file, dict) or file.get("path") != rel:
            continue
        for conv in file.get("conversations") or ():
            for rng in (conv.get("ranges") if isinstance(conv, dict) else None) or ():
                if (
                    isinstance(rng, dict)
                    and isinstance(rng.get("start_line"), int)
                    and isinstance(rng.get("end_line"), int)
                    and isinstance(rng.get("content_hash"), str)
                    and rng["start_line"] <= rng["end_line"]
                ):
                    out.append(rng)
    return out


def carried_ranges(
    records: Iterable[dict[str, Any]],
    rel: str,
    lines: Sequence[str],
    locator: Locator | None = None,
) -> list[CarriedRange]:
    """Every range of ``records`` for ``rel`` that ``lines`` still carry, in record order."""
    locator = locator or Locator(lines)
    out = []
    for record in records:
        for rng in file_ranges(record, rel):
            start, end, digest = rng["start_line"], rng["end_line"], rng["content_hash"]
            span = locator.find(start, end, digest)
            if span is not None:
                out.append(CarriedRange(span, LineSpan(start, end), digest, record))
    return out


def _span_of(details: dict[str, Any], key: str) -> LineSpan | None:
    value = details.get(key)
    if isinstance(value, dict):
        start, end = value.get("start_line"), value.get("end_line")
        if isinstance(start, int) and isinstance(end, int) and 1 <= start <= end:
            return LineSpan(start, end)
    return None


def open_verdicts(
    records: Iterable[dict[str, Any]],
    rel: str,
    text: str,
    *,
    approvals: ApprovalSet | Iterable[Approval] = (),
    covered: Collection[str] = (),
    definition_hashes: Collection[str] = (),
) -> list[OpenVerdict]:
    """The gated verdicts of ``records`` (for ``rel``, oldest first) still open in
    ``text`` (the rules are in the module doc). ``covered`` lists codes the caller
    considers resolved for now (scope codes while the active intent owns the file);
    ``definition_hashes`` are the content hashes of the file's current definitions.
    Newest record first when two records carry the same open verdict; sorted by line."""
    now = _Now(rel, text, frozenset(definition_hashes))
    known = ApprovalSet.of(approvals)
    seen: set[tuple[str, str, int]] = set()
    out: list[OpenVerdict] = []
    for record in reversed(list(records)):
        meta = intent_meta(record)
        if meta.get("kind") != "mutation":
            continue
        verdicts = [
            v
            for v in meta.get("verdicts") or ()
            if isinstance(v, dict) and _gates(v.get("code")) and v.get("code") not in covered
        ]
        if verdicts:
            saved = _Saved(record, meta, known.plus(approvals_from_records([record])))
            for found in now.open_of(saved, verdicts):
                key = _key(found)
                if key not in seen:
                    seen.add(key)
                    out.append(found)
    out.sort(key=lambda v: (v.span.start, v.span.end, v.code))
    return out


def _key(found: OpenVerdict) -> tuple[str, str, int]:
    """What makes two records' open verdicts one: the code, the key, and for a verdict
    on saved lines, where they are."""
    lines = rule_of(found.code).anchor is Anchor.LINES
    return (found.code, found.approval["content_hash"], found.span.start if lines else 0)


def _gates(code: object) -> bool:
    return isinstance(code, str) and rule_of(code).gates


class _Saved:
    """One save's record, as :func:`open_verdicts` reads it."""

    def __init__(self, record: dict[str, Any], meta: dict[str, Any], approved: ApprovalSet):
        self.record = record
        self.meta = meta
        self.approved = approved
        after = meta.get("after_hash")
        self.saved = after if isinstance(after, str) else None
        self.id = str(record.get("id"))
        self.timestamp = record.get("timestamp")
        self._carried: list[CarriedRange] | None = None

    def carried(self, now: _Now) -> list[CarriedRange]:
        if self._carried is None:
            self._carried = carried_ranges([self.record], now.rel, now.lines, now.locator)
        return self._carried


class _Now:
    """The file as it is now, and how a recorded verdict stands against it."""

    def __init__(self, rel: str, text: str, definition_hashes: frozenset[str]) -> None:
        self.rel = rel
        self.lines = text.splitlines()
        self.locator = Locator(self.lines)
        self.current = text_hash(text)
        self.last_line = max(len(self.lines), 1)
        self.definition_hashes = definition_hashes

    def open_of(self, saved: _Saved, verdicts: list[dict[str, Any]]) -> Iterator[OpenVerdict]:
        for verdict in verdicts:
            code = str(verdict["code"])
            message = str(verdict.get("message") or code)
            details = verdict.get("details") if isinstance(verdict.get("details"), dict) else {}
            if rule_of(code).anchor is Anchor.LINES:
                yield from self._lines_open(saved, code, message, details)
            else:
                found = self._content_open(saved, code, message, details)
                if found is not None:
                    yield found

    def _lines_open(
        self, saved: _Saved, code: str, message: str, details: dict[str, Any]
    ) -> Iterator[OpenVerdict]:
        """A verdict on the lines the save wrote: open on each range still standing
        that no approval covers."""
        for found in saved.carried(self):
            digest = found.content_hash
            if recorded_approval(code, self.rel, saved.approved, saved=saved.saved, lines=digest):
                continue
            span = found.span
            approval = approval_request(code, self.rel, span.start, span.end, digest)
            yield OpenVerdict(code, message, span, approval, saved.id, saved.timestamp, details)

    def _content_open(
        self, saved: _Saved, code: str, message: str, details: dict[str, Any]
    ) -> OpenVerdict | None:
        """A verdict about content (what was overwritten or destroyed): open until it is
        approved or the content is back."""
        named = approval_key(details)
        digest = named or saved.saved  # a keyless verdict is approved by the whole-file key
        if digest is None or recorded_approval(
            code, self.rel, saved.approved, saved=saved.saved, named=named
        ):
            return None
        span = self._span(saved, code, details, named)
        if span is None:
            return None
        if named is None:
            approval = approval_request(code, self.rel, 1, self.last_line, digest)
        else:
            wanted = details["approval"]
            start, end = wanted.get("start_line", span.start), wanted.get("end_line", span.end)
            approval = approval_request(code, self.rel, start, end, named)
        return OpenVerdict(code, message, span, approval, saved.id, saved.timestamp, details)

    def _span(
        self, saved: _Saved, code: str, details: dict[str, Any], named: str | None
    ) -> LineSpan | None:
        """Where the verdict sits now; None when what it is about is back."""
        if rule_of(code).anchor is Anchor.OVERWRITTEN:
            # the overwritten content is back: nothing is lost
            return None if details.get("disk_hash") == self.current else LineSpan(1, 1)
        destroyed = _span_of(details, "baseline_range")
        if named is not None and (
            named == self.current
            or named in self.definition_hashes
            or (destroyed and self.locator.contains(destroyed.end - destroyed.start + 1, named))
        ):
            return None  # what was destroyed is back
        return _place(
            _span_of(details, "range"),
            saved.meta,
            self.current,
            saved.carried(self),
            self.last_line,
        )


def _place(
    anchor: LineSpan | None,
    meta: dict[str, Any],
    current: str,
    carried: Sequence[CarriedRange],
    last_line: int,
) -> LineSpan:
    """Where a recorded anchor is now: exact while the file is as that save left it,
    else moved like the nearest range of the same record, clamped to the file."""
    if anchor is None:
        return LineSpan(1, 1)
    delta = 0
    if meta.get("after_hash") != current and carried:
        nearest = min(carried, key=lambda c: abs(c.recorded.start - anchor.start))
        delta = nearest.span.start - nearest.recorded.start
    start = min(max(anchor.start + delta, 1), last_line)
    end = min(max(anchor.end + delta, start), last_line)
    return LineSpan(start, end)
