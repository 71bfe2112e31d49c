"""Ledger lines → the ``records`` and ``touches`` Parquet tables, with DuckDB.

DuckDB reads the JSONL itself (in parallel, keeping each line's exact bytes for the
``line`` column), drops the records whose digest an earlier part already holds, and writes
the rest to temp files beside their final names. Publishing them is the caller's step, so
nothing is visible until the ledger they came from is known to be verified.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from intent_ls.export.layout import RepoDirs, part_name, temp_path

#: The fields read from each record (``json_transform``): what the columns need and no more.
_RECORD_SHAPE = {
    "id": "VARCHAR",
    "timestamp": "VARCHAR",
    "vcs": {"revision": "VARCHAR"},
    "files": [
        {
            "path": "VARCHAR",
            "conversations": [
                {
                    "contributor": {"type": "VARCHAR", "model_id": "VARCHAR"},
                    "ranges": [
                        {"start_line": "BIGINT", "end_line": "BIGINT", "content_hash": "VARCHAR"}
                    ],
                }
            ],
        }
    ],
    "metadata": {
        "intent_ls": {
            "digest": "VARCHAR",
            "kind": "VARCHAR",
            "intent_id": "VARCHAR",
            "session_id": "VARCHAR",
            "mutation_class": "VARCHAR",
            "prev": "VARCHAR",
            "parents": ["VARCHAR"],
            "verdicts": [{"code": "VARCHAR", "message": "VARCHAR", "details": "JSON"}],
            "approvals": [
                {
                    "verdict_code": "VARCHAR",
                    "path": "VARCHAR",
                    "start_line": "BIGINT",
                    "end_line": "BIGINT",
                    "content_hash": "VARCHAR",
                    "reason": "VARCHAR",
                    "approver": {"type": "VARCHAR", "model_id": "VARCHAR"},
                }
            ],
            "ast_nodes": [
                {
                    "path": "VARCHAR",
                    "name": "VARCHAR",
                    "kind": "VARCHAR",
                    "start_line": "BIGINT",
                    "end_line": "BIGINT",
                    "content_hash": "VARCHAR",
                }
            ],
        }
    },
}
#: A ledger line is one record; a record touching thousands of definitions is still far
#: below this.
_MAX_LINE = 32 * 1024 * 1024

_CANDIDATES = """
CREATE TEMP TABLE candidates AS
SELECT
  r.metadata.intent_ls.digest AS digest,
  r.id AS id,
  TRY_CAST(r.timestamp AS TIMESTAMPTZ) AS ts,
  r.metadata.intent_ls.kind AS kind,
  r.metadata.intent_ls.intent_id AS intent_id,
  r.metadata.intent_ls.session_id AS session_id,
  r.metadata.intent_ls.mutation_class AS mutation_class,
  r.files[1].conversations[1].contributor.type AS contributor_type,
  r.files[1].conversations[1].contributor.model_id AS model_id,
  r.vcs.revision AS revision,
  r.metadata.intent_ls.prev AS prev,
  coalesce(r.metadata.intent_ls.parents, []) AS parents,
  coalesce(r.metadata.intent_ls.verdicts, []) AS verdicts,
  coalesce(r.metadata.intent_ls.approvals, []) AS approvals,
  line,
  flatten(flatten(list_transform(r.files, lambda f: list_transform(f.conversations,
    lambda c: list_transform(c.ranges, lambda g: {
      'path': f.path, 'name': NULL::VARCHAR, 'kind': NULL::VARCHAR,
      'start_line': g.start_line, 'end_line': g.end_line, 'content_hash': g.content_hash})))))
  || coalesce(r.metadata.intent_ls.ast_nodes, []) AS touched
FROM (
  SELECT json::VARCHAR AS line, json_transform(json, $shape) AS r
  FROM read_json_objects($source, format = 'newline_delimited', maximum_object_size = $max)
)
"""
_RECORD_COLUMNS = (
    "digest, id, ts, kind, intent_id, session_id, mutation_class, contributor_type, "
    "model_id, revision, prev, parents, verdicts, approvals, line"
)
_TOUCHES = """
SELECT digest, t.path, t.name, t.kind, t.start_line, t.end_line, t.content_hash
FROM candidates, unnest(touched) AS u(t)
"""
_PARQUET = "(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1)"
#: DuckDB's own default is 80% of the machine's memory; a CI runner shares it. Past this
#: the staged records spill to the scratch directory: a 1M-record first export then peaks
#: at ~2 GB instead of ~3 GB, for ~15% more CPU time (``benchmarks/export_bench.py``).
_MEMORY_LIMIT = "2GB"


@attrs.frozen
class Staged:
    """Parts written under temp names, not yet visible to readers."""

    records: int
    touches: int
    already: int
    name: str
    records_temp: Path
    touches_temp: Path

    def discard(self) -> None:
        self.records_temp.unlink(missing_ok=True)
        self.touches_temp.unlink(missing_ok=True)


def stage(source: Path, dirs: RepoDirs, connection: Any) -> Staged | None:
    """Writes the records of ``source`` not yet in ``dirs``; None when there are none.
    ``already`` counts the source's records an earlier part holds."""
    db = connection
    db.execute(
        _CANDIDATES,
        {"shape": json.dumps(_RECORD_SHAPE), "source": str(source), "max": _MAX_LINE},
    )
    parts = [str(dirs.records / name) for name in dirs.record_parts()]
    already = 0
    if parts:
        db.execute(
            "CREATE TEMP TABLE seen AS SELECT digest FROM read_parquet($parts) "
            "WHERE digest IN (SELECT digest FROM candidates)",
            {"parts": parts},
        )
        (already,) = db.execute("SELECT count(*) FROM seen").fetchone()
        db.execute("DELETE FROM candidates WHERE digest IN (SELECT digest FROM seen)")
    count, first = db.execute("SELECT count(*), min(digest) FROM candidates").fetchone()
    if not count:
        return None
    name = part_name(first)
    records_temp = temp_path(dirs.records, name)
    touches_temp = temp_path(dirs.touches, name)
    staged = Staged(count, 0, already, name, records_temp, touches_temp)
    try:
        (touches,) = db.execute(
            f"COPY ({_TOUCHES}) TO '{_quoted(touches_temp)}' {_PARQUET}"
        ).fetchone()
        db.execute(
            f"COPY (SELECT {_RECORD_COLUMNS} FROM candidates) TO '{_quoted(records_temp)}' "
            f"{_PARQUET}"
        )
    except BaseException:
        staged.discard()
        raise
    return attrs.evolve(staged, touches=touches)


def _quoted(path: Path) -> str:
    """A path as a SQL string literal's body (COPY takes no parameter for its target)."""
    return str(path).replace("'", "''")


def connect(scratch: Path) -> Any:
    """A DuckDB connection for one export: UTC, bounded memory, spilling to ``scratch``
    (inside the export directory) rather than to the current directory, no extension
    downloads."""
    import duckdb

    db = duckdb.connect()
    db.execute("SET autoinstall_known_extensions = false")
    db.execute("SET TimeZone = 'UTC'")
    db.execute("SET preserve_insertion_order = false")
    db.execute(f"SET memory_limit = '{_MEMORY_LIMIT}'")
    db.execute(f"SET temp_directory = '{_quoted(scratch)}'")
    return db
