"""What the index answers: records by content hash, path, intent, definition, and the
aggregates the intent map and code lenses show. Each query reads the ledger's lines only
through the index's rows; :meth:`TraceIndex.load_record` reads a whole record back.
"""

from __future__ import annotations

import heapq
import json
import sqlite3
from collections.abc import Collection, Sequence
from operator import itemgetter
from typing import Any, NamedTuple

from intent_ls.common.hashing import hash_key
from intent_ls.common.safe_io import open_sidecar_reader
from intent_ls.ledger.index.cache import IndexCache
from intent_ls.ledger.index.rows import FILE_ROW
from intent_ls.syntax.model import AstNode

#: The ``records`` columns a :class:`RecordRef` is made of (``lkey`` is internal).
_REF = "r.seq, r.offset, r.ts, r.intent, r.ctype, r.model, r.mclass, r.kind"
#: Leaves out file rows (:data:`~intent_ls.ledger.index.rows.FILE_ROW`): they say a record
#: names the file, not that it left content there. Queries by name or hash need not ask:
#: a file row has neither.
_CONTENT = f"t.nkind IS NOT '{FILE_ROW}'"
#: Below SQLite's default limit of host parameters per statement (999 before 3.32).
_KEYS_PER_QUERY = 500
#: Each query is asked of the cache file and of each shard (:mod:`.schema`): ``{s}`` is
#: the file's schema. Paths and names are ids in that file's ``strings``.
_JOIN = "FROM {s}.touches t JOIN {s}.records r ON r.seq = t.seq "
_PATH_TEXT = "(SELECT text FROM {s}.strings WHERE id = t.path)"
_NAME_TEXT = "(SELECT text FROM {s}.strings WHERE id = t.name)"
_IDS = "(SELECT id FROM {s}.strings WHERE text = ?)"
#: A hover's lookups, newest first without a sort (:func:`_newest_walked`): a file's
#: ``touches`` rows are written in ``seq`` order (a cold build's halves each in order;
#: appends, and a realign's lines, numbered after every ``seq`` there is), so walking an
#: index entry backwards by rowid meets the newest record first and stops after a few
#: rows. Ordering by ``r.seq`` joined and sorted every match: ~500 per definition at 1M
#: records, 3-4 ms a hover. A text's id is compared with ``=``, not ``IN`` (which reads
#: an index range per id and sorts what it found): a file gives a text one id
#: (:class:`~.strings.Strings`).
_BLAME_DEFINITION = (
    f"SELECT {_REF} {_JOIN}WHERE t.path = {_IDS} AND t.name = {_IDS} ORDER BY t.rowid DESC"
)
_BLAME_CONTENT = (
    f"SELECT {_REF}, {_PATH_TEXT}, {_NAME_TEXT} {_JOIN}WHERE t.hkey = ? ORDER BY t.rowid DESC"
)


_seq = itemgetter(0)


def _newest(rows: list[tuple[Any, ...]], limit: int | None) -> list[tuple[Any, ...]]:
    """``rows`` (``seq`` first) of several files, newest first, at most ``limit``: each
    file's own newest ``limit`` hold the newest of all. A record is in one file only."""
    rows.sort(key=_seq, reverse=True)
    return rows if limit is None else rows[:limit]


def _newest_walked(cursors: list[sqlite3.Cursor], limit: int) -> list[tuple[Any, ...]]:
    """The first ``limit`` rows (``seq`` first) that ``ORDER BY r.seq DESC LIMIT limit``
    over all files gives, read from ``cursors``, one per file, each walking its
    ``touches`` by rowid from the newest: merged lazily, a file whose newest rows are
    older than the others' is read no further than its first row. A record's own rows
    come out as written, the last record's all read before it is cut: which of its rows
    comes first decides a blame entry's path."""
    rows: list[tuple[Any, ...]] = []
    try:
        for row in heapq.merge(*cursors, key=_seq, reverse=True):
            if len(rows) >= limit and (not rows or row[0] != rows[-1][0]):
                break
            rows.append(row)
    finally:
        for cursor in cursors:
            cursor.close()
    rows.reverse()
    rows.sort(key=_seq, reverse=True)  # stable: a record's rows stay in order
    return rows[:limit]


class RecordRef(NamedTuple):
    """One ledger record as the index knows it; ``offset`` locates its line."""

    seq: int
    offset: int
    timestamp: str
    intent_id: str | None
    contributor: str | None
    model_id: str | None
    mutation_class: str | None
    kind: str | None


class BlameEntry(NamedTuple):
    """One record behind a line or definition; ``via`` says how it matched: "definition"
    (same path and qualified name), "content" (same content hash, wherever it was)."""

    record: RecordRef
    path: str
    name: str | None
    via: str


class DefinitionStats(NamedTuple):
    changes: int
    intents: tuple[str, ...]
    last_timestamp: str | None


class SummaryRow(NamedTuple):
    """Per (intent, path, definition) aggregate for the intent map; ``name`` None is the
    file-level row (records that touched the file at all)."""

    intent_id: str
    path: str
    name: str | None
    kind: str | None
    changes: int
    last_timestamp: str
    contributors: tuple[str, ...]


class TraceIndex(IndexCache):
    """Query the ledger's history; every query first picks up new appends (cheap stat)."""

    @property
    def record_count(self) -> int:
        return sum(row[0] for row in self._each("SELECT count(*) FROM {s}.records"))

    def records_for_hash(self, digest: str, limit: int = 100) -> list[RecordRef]:
        return self._refs(
            f"SELECT DISTINCT {_REF} {_JOIN}WHERE t.hkey = ? ORDER BY r.seq DESC LIMIT ?",
            (hash_key(digest), limit),
            limit,
        )

    def records_for_path(self, path: str, limit: int | None = None) -> list[RecordRef]:
        """Every record that names ``path``, with or without ranges (a pure deletion, a
        file deleted): the editor judges a file's recorded verdicts by this list."""
        return self._refs(
            f"SELECT DISTINCT {_REF} {_JOIN}WHERE t.path IN {_IDS} ORDER BY r.seq DESC LIMIT ?",
            (path, -1 if limit is None else limit),
            limit,
        )

    def records_for_intent(self, intent_id: str, limit: int | None = None) -> list[RecordRef]:
        return self._refs(
            f"SELECT {_REF} FROM {{s}}.records r WHERE intent = ? ORDER BY seq DESC LIMIT ?",
            (intent_id, -1 if limit is None else limit),
            limit,
        )

    def all_records(self) -> list[RecordRef]:
        rows = self._each(f"SELECT {_REF} FROM {{s}}.records r ORDER BY seq")
        rows.sort(key=lambda row: row[0])
        return [RecordRef(*row) for row in rows]

    def _refs(self, sql: str, params: Sequence[Any], limit: int | None) -> list[RecordRef]:
        return [RecordRef(*row) for row in _newest(self._each(sql, params), limit)]

    def blame(
        self,
        path: str,
        *,
        definition: AstNode | None = None,
        content_hash: str | None = None,
        limit: int = 20,
    ) -> list[BlameEntry]:
        """Who changed this: records that touched ``definition`` by name in ``path``, or
        whose ranges or nodes had the same content hash anywhere (code that moved keeps
        its history). ``content_hash`` is the hover line's (or selection's) hash. Newest
        first, one entry per record."""
        db = self._fresh()

        def newest(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
            cursors = [db.execute(sql.format(s=schema), params) for schema in self.schemas]
            return _newest_walked(cursors, limit)

        found: dict[int, BlameEntry] = {}
        if definition is not None:
            # The rows found have this path and name: no need to look their texts up.
            for row in newest(_BLAME_DEFINITION, (path, definition.name)):
                entry = BlameEntry(RecordRef(*row), path, definition.name, "definition")
                found.setdefault(row[0], entry)
        for digest in (definition.content_hash if definition else None, content_hash):
            if digest is None:
                continue
            for row in newest(_BLAME_CONTENT, (hash_key(digest),)):
                entry = BlameEntry(RecordRef(*row[:8]), row[8], row[9], "content")
                found.setdefault(row[0], entry)
        return [found[seq] for seq in sorted(found, reverse=True)][:limit]

    def definition_stats(self, path: str, definitions: Sequence[AstNode]) -> list[DefinitionStats]:
        """Per definition (aligned with ``definitions``): mutation records that touched it
        by name here or by content hash anywhere — the code lens "INT-001 · 3 changes"."""
        out = []
        for d in definitions:
            rows = self._each(
                f"SELECT r.seq, r.intent, r.ts {_JOIN}"
                f"WHERE t.path IN {_IDS} AND t.name IN {_IDS} AND r.kind = 'mutation' "
                f"UNION SELECT r.seq, r.intent, r.ts {_JOIN}"
                "WHERE t.hkey = ? AND t.name IS NOT NULL AND r.kind = 'mutation'",
                (path, d.name, hash_key(d.content_hash)),
            )
            last = max(rows, key=lambda r: r[0]) if rows else None
            out.append(
                DefinitionStats(
                    changes=len(rows),
                    intents=tuple(sorted({r[1] for r in rows if r[1]})),
                    last_timestamp=last[2] if last else None,
                )
            )
        return out

    def summary(self) -> list[SummaryRow]:
        """Aggregates per (intent, path, definition) and per (intent, path), sorted. Each
        file's are added up by their texts: its records are its own (counts add), the
        latest timestamp and kind are the greatest, the contributors all of them."""
        groups: dict[tuple[Any, ...], list[Any]] = {}
        for intent, path, name, kind, changes, last, who in self._each(
            "SELECT r.intent, p.text, n.text, max(t.nkind), count(DISTINCT r.seq), max(r.ts), "
            "group_concat(DISTINCT r.ctype || coalesce(':' || r.model, '')) "
            f"{_JOIN}LEFT JOIN {{s}}.strings p ON p.id = t.path "
            "LEFT JOIN {s}.strings n ON n.id = t.name "
            f"WHERE r.kind = 'mutation' AND r.intent IS NOT NULL AND {_CONTENT} "
            "GROUP BY r.intent, p.text, n.text"
        ):
            seen = groups.setdefault((intent, path, name), [None, 0, None, None])
            seen[0] = _greatest(seen[0], kind)
            seen[1] += changes
            seen[2] = _greatest(seen[2], last)
            if who is not None:  # group_concat of no contributor at all is NULL
                seen[3] = (seen[3] or set()) | set(who.split(","))
        out = [
            SummaryRow(intent, path, name, kind, changes, last, tuple(sorted(who or {""})))
            for (intent, path, name), (kind, changes, last, who) in groups.items()
        ]
        out.sort(key=lambda r: (r.intent_id, r.path or "", r.name or ""))
        return out

    def known_keys(self, keys: Collection[int]) -> set[int]:
        """Those of ``keys`` (:func:`~intent_ls.common.hashing.hash_key`) that some range
        or node content hash on the ledger has: lets a caller hashing many candidate
        windows ask about only those that can match, without loading every key (2M at
        1M records)."""
        found: set[int] = set()
        wanted = list(keys)
        for at in range(0, len(wanted), _KEYS_PER_QUERY):
            batch = wanted[at : at + _KEYS_PER_QUERY]
            marks = ",".join("?" * len(batch))
            rows = self._each(
                f"SELECT DISTINCT hkey FROM {{s}}.touches WHERE hkey IN ({marks})", batch
            )
            found.update(row[0] for row in rows)
        return found

    def has_content_keys(self) -> bool:
        """Whether any range or node content hash is on the ledger at all."""
        return bool(self._each("SELECT 1 FROM {s}.touches WHERE hkey IS NOT NULL LIMIT 1"))

    def mutated_paths(self) -> set[str]:
        """Every path a mutation record touched (by a range or an AST node)."""
        rows = self._each(
            f"SELECT DISTINCT p.text {_JOIN}JOIN {{s}}.strings p ON p.id = t.path "
            f"WHERE r.kind = 'mutation' AND {_CONTENT}"
        )
        return {row[0] for row in rows}

    def load_record(self, ref: RecordRef) -> dict[str, Any]:
        """The full record behind ``ref``, read from the ledger (the source of truth)."""
        with open_sidecar_reader(self.ledger) as f:
            f.seek(ref.offset)
            return json.loads(f.readline())


def _greatest(a: Any, b: Any) -> Any:
    """SQLite's ``max`` of two values, NULL (None) being the least."""
    return b if a is None or (b is not None and b > a) else a
