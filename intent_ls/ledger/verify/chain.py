"""The links between the lines of a ledger, checked as the lines come in order."""

from __future__ import annotations

from intent_ls.ledger.store import GENESIS
from intent_ls.ledger.verify.results import Problem


class Chain:
    """The links between lines (``docs/ledger.md``, "The chain"): each ``prev`` and each
    merge record's ``parents`` name an earlier line (``prev`` may be the genesis value),
    or a line a merge record declared ``absent``; no line occurs twice; and every
    line but the last is named by some record, so removing a record is seen by the one
    that named it, and inserting one leaves it unnamed. A single writer's ledger is the
    special case where each ``prev`` names the line just before."""

    def __init__(self) -> None:
        self.count = 0
        self._last = GENESIS
        self._last_named = True
        self._lines: dict[str, int] = {}
        # Lines not named so far, but for the last one, tracked by ``_last_named``: in
        # a single writer's ledger the next line names it and this stays empty.
        self._unnamed: dict[str, int] = {}
        self._forward: list[tuple[int, str]] = []
        self._absent: set[str] = set()

    def add(
        self,
        number: int,
        digest: str,
        prev: str | None,
        parents: tuple[str, ...] = (),
        absent: tuple[str, ...] = (),
    ) -> str | None:
        first = self._lines.setdefault(digest, number)
        if first != number:
            return f"duplicated line: the same bytes as line {first}"
        if prev != GENESIS:
            self._name(number, str(prev))
        for parent in parents:
            self._name(number, parent)
        if absent:
            self._absent.update(absent)
        if not self._last_named:
            self._unnamed[self._last] = self._lines[self._last]
        self._last = digest
        self._last_named = False
        self.count += 1
        return None

    def _name(self, number: int, name: str) -> None:
        if name == self._last:
            self._last_named = True
        elif name in self._lines:
            self._unnamed.pop(name, None)
        else:
            self._forward.append((number, name))

    def finish(self) -> Problem | None:
        """The checks that need the whole file: references to lines not before them, and
        lines nothing names. A dangling reference is reported before an unnamed line, as
        it points at where the record is missing; among each kind, the first line."""
        problems: list[Problem] = []
        for number, prev in self._forward:  # a prev or a parent
            if prev in self._absent:
                self._unnamed.pop(prev, None)
            elif prev in self._lines:
                problems.append(
                    Problem(
                        number,
                        f"chain broken: prev names line {self._lines[prev]}, which comes "
                        "after it (records reordered)",
                    )
                )
            else:
                problems.append(
                    Problem(
                        number,
                        "chain broken: prev names no line of the ledger (a record was "
                        "removed or altered)",
                    )
                )
        if problems:
            return min(problems, key=lambda p: p.line)
        for number in self._unnamed.values():
            problems.append(
                Problem(
                    number,
                    "chain broken: no later record names this line (the record after it "
                    "was removed, or this one was inserted)",
                )
            )
        return min(problems, key=lambda p: p.line, default=None)
