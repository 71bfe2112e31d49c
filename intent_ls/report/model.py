"""What a report shows, as plain data: one :class:`RepoReport` per repository.

Both sources (a workspace's ledger, a directory of Parquet exports) fill the same
:class:`RepoTally`, so the page cannot tell them apart and the numbers mean the same thing:
*changed lines* are the lines in a mutation record's ranges (lines added or rewritten, as
saved), counted for the record's contributor type and model; approval and merge records
change no line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import attrs

#: The model column for a contributor that named none (every human, some agents).
NO_MODEL = "(none)"
#: The intent column for records saved with no active intent.
NO_INTENT = "(no intent)"
CONTRIBUTOR_TYPES = ("ai", "human", "mixed", "unknown")


@attrs.frozen
class SpecIntent:
    """An intent as the spec declares it (absent for intents only the ledger names)."""

    id: str
    name: str
    status: str
    owned_scope: tuple[str, ...] = ()
    acceptance_criteria: tuple[str, ...] = ()
    source: str | None = None


@attrs.frozen
class VerdictRow:
    record_id: str
    timestamp: str
    intent_id: str
    path: str
    code: str
    message: str
    #: Who approved it ("" while it is open).
    approver: str = ""

    @property
    def open(self) -> bool:
        return not self.approver


@attrs.frozen
class ApprovalRow:
    timestamp: str
    intent_id: str
    path: str
    verdict_code: str
    approver: str
    reason: str
    content_hash: str


@attrs.define
class IntentTally:
    intent_id: str
    spec: SpecIntent | None = None
    records: int = 0
    files: set[str] = attrs.Factory(set)
    nodes: set[tuple[str, str]] = attrs.Factory(set)
    lines_by_type: Counter[str] = attrs.Factory(Counter)
    lines_by_model: Counter[str] = attrs.Factory(Counter)
    lines_per_file: Counter[str] = attrs.Factory(Counter)
    lessons: list[str] = attrs.Factory(list)

    @property
    def lines(self) -> int:
        return sum(self.lines_by_type.values())


@attrs.define
class RepoTally:
    """A repository's figures, filled record by record."""

    name: str
    intents: dict[str, IntentTally] = attrs.Factory(dict)
    records_by_kind: Counter[str] = attrs.Factory(Counter)
    lines_by_type: Counter[str] = attrs.Factory(Counter)
    lines_by_model: Counter[str] = attrs.Factory(Counter)
    #: Records per UTC day (``YYYY-MM-DD``), every kind.
    per_day: Counter[str] = attrs.Factory(Counter)
    verdicts: list[VerdictRow] = attrs.Factory(list)
    approvals: list[ApprovalRow] = attrs.Factory(list)
    #: Lessons filed under an intent id in ``.orchestration/CLAUDE.md``.
    lessons: dict[str, list[str]] = attrs.Factory(dict)
    #: Why the ledger failed verification (None: it verified, or was not checked).
    ledger_problem: str | None = None
    #: The spec's errors (``line:column: message``): intents they affect are missing.
    spec_problems: list[str] = attrs.Factory(list)
    #: Where the data came from, said on the page.
    origin: str = ""

    def intent(self, intent_id: str | None) -> IntentTally:
        key = intent_id or NO_INTENT
        tally = self.intents.get(key)
        if tally is None:
            tally = self.intents[key] = IntentTally(key)
        return tally

    def declare(self, intents: Iterable[SpecIntent]) -> None:
        for spec in intents:
            self.intent(spec.id).spec = spec

    def add_lines(
        self, intent: IntentTally, path: str, contributor: str, model: str | None, n: int
    ) -> None:
        model_key = model or NO_MODEL
        intent.lines_per_file[path] += n
        intent.lines_by_type[contributor] += n
        intent.lines_by_model[model_key] += n
        self.lines_by_type[contributor] += n
        self.lines_by_model[model_key] += n

    @property
    def records(self) -> int:
        return sum(self.records_by_kind.values())

    def ordered_intents(self) -> list[IntentTally]:
        """Spec intents in id order, then intents only the ledger names."""
        return sorted(self.intents.values(), key=lambda t: (t.spec is None, t.intent_id))
