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
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import attrs

from intent_ls.common.diff import LineSpan
from intent_ls.common.hashing import content_hash, text_hash
from intent_ls.ledger.records import approvals_from_records, intent_meta
from intent_ls.policy.approvals import (
    Approval,
    ApprovalSet,
    approval_key,
    approval_request,
    recorded_approval,
)
from intent_ls.policy.verdicts import GATED, SCOPE_CODES, STALE_FILE

#: Lines hashed at most per call when looking for ranges away from their recorded place
#: (every window of a range's length is hashed once per length).
SEARCH_BUDGET = 300_000


@attrs.frozen
class CarriedRange:
    """A record's range found in the current text: ``span`` now, ``recorded`` as saved."""

    span: LineSpan
    recorded: LineSpan
    content_hash: str
    record: dict[str, Any] = attrs.field(eq=False, repr=False)


@attrs.frozen
class OpenVerdict:
    """A recorded verdict still open, placed on the current text (1-based lines)."""

    code: str
    message: str
    span: LineSpan
    #: The approval that resolves it: ``verdict_code``, ``path``, ``start_line``,
    #: ``end_line``, ``content_hash`` (what ``intent.approve`` records).
    approval: dict[str, Any] = attrs.field(eq=False)
    record_id: str
    timestamp: str | None
    details: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False)


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
    known = ApprovalSet.of(approvals)
    lines = text.splitlines()
    locator = Locator(lines)
    current = text_hash(text)
    last_line = max(len(lines), 1)
    seen: set[tuple[str, str, int]] = set()
    out: list[OpenVerdict] = []
    for record in reversed(list(records)):
        meta = intent_meta(record)
        if meta.get("kind") != "mutation":
            continue
        verdicts = [
            v
            for v in meta.get("verdicts") or ()
            if isinstance(v, dict) and v.get("code") in GATED and v.get("code") not in covered
        ]
        if not verdicts:
            continue
        approved = known.plus(approvals_from_records([record]))
        saved = meta.get("after_hash") if isinstance(meta.get("after_hash"), str) else None
        rid, stamp = str(record.get("id")), record.get("timestamp")
        carried: list[CarriedRange] | None = None
        for verdict in verdicts:
            code, message = str(verdict["code"]), str(verdict.get("message") or verdict["code"])
            details = verdict.get("details") if isinstance(verdict.get("details"), dict) else {}
            if code in SCOPE_CODES:
                if carried is None:
                    carried = carried_ranges([record], rel, lines, locator)
                for found in carried:
                    digest = found.content_hash
                    if recorded_approval(code, rel, approved, saved=saved, lines=digest):
                        continue
                    key = (code, digest, found.span.start)
                    if key not in seen:
                        seen.add(key)
                        out.append(
                            OpenVerdict(
                                code,
                                message,
                                found.span,
                                approval_request(
                                    code, rel, found.span.start, found.span.end, digest
                                ),
                                rid,
                                stamp,
                                details,
                            )
                        )
                continue
            named = approval_key(details)
            digest = named or saved  # a keyless verdict is approved by the whole-file key
            if digest is None or recorded_approval(code, rel, approved, saved=saved, named=named):
                continue
            if code == STALE_FILE:
                if details.get("disk_hash") == current:
                    continue  # the overwritten content is back
                span = LineSpan(1, 1)
            else:
                destroyed = _span_of(details, "baseline_range")
                if named is not None and (
                    named == current
                    or named in definition_hashes
                    or (destroyed and locator.contains(destroyed.end - destroyed.start + 1, named))
                ):
                    continue  # what was destroyed is back
                if carried is None:
                    carried = carried_ranges([record], rel, lines, locator)
                span = _place(_span_of(details, "range"), meta, current, carried, last_line)
            key = (code, digest, 0)
            if key in seen:
                continue
            seen.add(key)
            if named is None:
                approval = approval_request(code, rel, 1, last_line, digest)
            else:
                wanted = details["approval"]
                start, end = wanted.get("start_line", span.start), wanted.get("end_line", span.end)
                approval = approval_request(code, rel, start, end, named)
            out.append(OpenVerdict(code, message, span, approval, rid, stamp, details))
    out.sort(key=lambda v: (v.span.start, v.span.end, v.code))
    return out


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
