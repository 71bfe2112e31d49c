"""What ``trace verify`` answers: the record count, the first problem, and the lines an
:class:`~intent_ls.ledger.verify.interest.Interest` asked for."""

from __future__ import annotations

import attrs

WantedLine = tuple[int, int, bytes]  # line number, byte offset, line without newline


@attrs.frozen
class Problem:
    line: int  # 1-based
    reason: str


@attrs.frozen
class VerifyResult:
    records: int
    problem: Problem | None
    #: The lines an :class:`Interest` asked for (none without one).
    wanted: tuple[WantedLine, ...] = ()

    @property
    def ok(self) -> bool:
        return self.problem is None
