"""What ``intent-ls check`` asks of the trace index, answered from the verifying pass.

A fresh clone has no index cache, and building one for a 1M-record ledger costs more than
the rest of the check together, while the check asks only narrow questions: the records
that name each changed path, which of the changed lines' window hashes some record has,
and the records with one of those hashes. All of them are known before the ledger is read
(``prepare.ledger_interest``), so ``trace verify``'s pass, which reads every line anyway, hands
back the few lines that can answer them (:class:`~intent_ls.ledger.verify.Interest`), and
they are parsed into the index's own rows (:func:`~intent_ls.ledger.index.json_rows`):
the same answers the index gives, in the same order. A question outside what was asked
for (a path found only through moved code, a window of a block longer than the windows
prepared) builds the index after all and is answered there.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Protocol

from intent_ls.common.hashing import hash_key
from intent_ls.ledger.index import RecordRef, TraceIndex, json_rows
from intent_ls.ledger.verify import Interest, WantedLine


class Answers(Protocol):
    """The questions the rule asks of the ledger: :class:`TraceIndex` answers them, and
    so does :class:`ScannedAnswers` for a fresh clone."""

    ledger: Path

    def records_for_path(self, path: str, limit: int | None = None) -> list[RecordRef]: ...
    def records_for_hash(self, digest: str, limit: int = 100) -> list[RecordRef]: ...
    def known_keys(self, keys: Collection[int]) -> set[int]: ...
    def has_content_keys(self) -> bool: ...
    def mutated_paths(self) -> set[str]: ...
    def close(self) -> None: ...


class ScannedAnswers:
    """The index's answers for the paths and window keys of ``interest``, from the lines
    the verifying pass handed back; anything else is asked of ``fallback()``'s index."""

    def __init__(
        self,
        ledger: Path,
        interest: Interest,
        lines: Iterable[WantedLine],
        fallback: Callable[[], TraceIndex],
    ) -> None:
        self.ledger = ledger
        self._interest = interest
        self._fallback = fallback
        self._index: TraceIndex | None = None
        by_path: dict[str, list[RecordRef]] = defaultdict(list)
        by_key: dict[int, list[RecordRef]] = defaultdict(list)
        for seq, offset, body in lines:
            row, touches = json_rows(seq, offset, body)
            ref = RecordRef(*row[:8])
            for touch in touches:
                path, key = touch[1], touch[4]
                if path in interest.paths and not _last_is(by_path[path], seq):
                    by_path[path].append(ref)
                if key in interest.keys and not _last_is(by_key[key], seq):
                    by_key[key].append(ref)
        # The index answers newest first.
        self._by_path = {path: refs[::-1] for path, refs in by_path.items()}
        self._by_key = {key: refs[::-1] for key, refs in by_key.items()}

    def _asked(self) -> TraceIndex:
        if self._index is None:
            self._index = self._fallback()
        return self._index

    def records_for_path(self, path: str, limit: int | None = None) -> list[RecordRef]:
        if path not in self._interest.paths:
            return self._asked().records_for_path(path, limit)
        refs = self._by_path.get(path, [])
        return refs[:] if limit is None else refs[:limit]

    def records_for_hash(self, digest: str, limit: int = 100) -> list[RecordRef]:
        key = hash_key(digest)
        if key not in self._interest.keys:
            return self._asked().records_for_hash(digest, limit)
        return self._by_key.get(key, [])[:limit]

    def known_keys(self, keys: Collection[int]) -> set[int]:
        if not self._interest.keys.issuperset(keys):
            return self._asked().known_keys(keys)
        return {key for key in keys if key in self._by_key}

    def has_content_keys(self) -> bool:
        """Always "maybe": :meth:`known_keys` answers exactly either way, and a ledger
        with no content hash at all is not worth a question of its own."""
        return True

    def mutated_paths(self) -> set[str]:
        return self._asked().mutated_paths()

    def close(self) -> None:
        if self._index is not None:
            self._index.close()


def _last_is(refs: list[RecordRef], seq: int) -> bool:
    return bool(refs) and refs[-1].seq == seq
