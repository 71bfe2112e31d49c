"""DuckDB SQL over one or many export roots (``intent-ls export --query``).

The query sees two views, ``records`` and ``touches``, over every repository's parts
under the roots, with ``repo`` decoded from the ``repo=…`` directories. It can read those
roots and nothing else: the connection is confined to them (no other file, no extension
download) and its configuration is locked before the user's SQL runs.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from intent_ls.export import ExportError
from intent_ls.export.layout import RECORDS, TOUCHES, export_globs


@attrs.frozen
class NamedQuery:
    description: str
    sql: str
    params: tuple[str, ...] = ()


#: The common questions, by name. Changed lines are the ranges' lines (a range is one
#: contiguous block of lines as saved); approvals and merges change none.
NAMED_QUERIES: dict[str, NamedQuery] = {
    "ai-share": NamedQuery(
        "changed lines per intent by contributor type, and the share written by AI",
        """
SELECT r.repo, r.intent_id,
  sum(t.end_line - t.start_line + 1) AS lines,
  sum(t.end_line - t.start_line + 1) FILTER (WHERE r.contributor_type = 'ai') AS ai,
  sum(t.end_line - t.start_line + 1) FILTER (WHERE r.contributor_type = 'human') AS human,
  sum(t.end_line - t.start_line + 1) FILTER (WHERE r.contributor_type = 'mixed') AS mixed,
  sum(t.end_line - t.start_line + 1) FILTER (WHERE r.contributor_type = 'unknown') AS unknown,
  round(coalesce(ai, 0) / lines, 4) AS ai_share
FROM records r JOIN touches t USING (repo, digest)
WHERE r.kind = 'mutation' AND t.name IS NULL
GROUP BY ALL ORDER BY r.repo, r.intent_id NULLS LAST
""",
    ),
    "changed-path": NamedQuery(
        "every record that changed a file or a directory (--param path=PATH)",
        """
SELECT r.repo, r.ts, r.intent_id, r.kind, r.contributor_type, r.model_id, t.path,
  string_agg(DISTINCT t.name, ', ' ORDER BY t.name) AS definitions, r.digest
FROM records r JOIN touches t USING (repo, digest)
WHERE t.path = rtrim($path, '/') OR starts_with(t.path, rtrim($path, '/') || '/')
GROUP BY ALL ORDER BY r.ts, r.repo, t.path
""",
        ("path",),
    ),
    "open-verdicts": NamedQuery(
        "verdicts recorded on saves that no approval in the same repository covers",
        """
WITH verdicts AS (
  SELECT r.repo, r.ts, r.intent_id, r.digest, v.code, v.message,
    (SELECT t.path FROM touches t WHERE t.repo = r.repo AND t.digest = r.digest
     AND t.name IS NULL LIMIT 1) AS path
  FROM records r, unnest(r.verdicts) AS u(v)
  WHERE r.kind = 'mutation'
), approved AS (
  SELECT DISTINCT r.repo, a.verdict_code, a.path
  FROM records r, unnest(r.approvals) AS u(a)
)
SELECT v.repo, v.ts, v.intent_id, v.path, v.code, v.message, v.digest
FROM verdicts v ANTI JOIN approved a
  ON a.repo = v.repo AND a.verdict_code = v.code AND a.path IS NOT DISTINCT FROM v.path
ORDER BY v.ts, v.repo
""",
    ),
    "records-per-model": NamedQuery(
        "records per contributor type and model, with the first and last time",
        """
SELECT repo, contributor_type, model_id, count(*) AS records,
  min(ts) AS first_ts, max(ts) AS last_ts
FROM records WHERE kind <> 'merge'
GROUP BY ALL ORDER BY repo, records DESC, model_id NULLS LAST
""",
    ),
}


@attrs.frozen
class QueryResult:
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]


def run_query(roots: Sequence[Path], query: str, params: Mapping[str, str]) -> QueryResult:
    """``query`` is a named query or SQL; raises :class:`ExportError` for a missing export,
    a missing parameter or SQL DuckDB refuses."""
    import duckdb

    named = NAMED_QUERIES.get(query)
    sql = named.sql if named is not None else query
    wanted = set(named.params) if named is not None else set()
    missing = sorted(wanted - set(params))
    if missing:
        flags = " ".join(f"--param {name}=…" for name in missing)
        raise ExportError(f"query {query!r} needs {flags}")
    db = _confined(roots)
    try:
        cursor = db.execute(sql, dict(params) if params else None)
        columns = tuple(d[0] for d in cursor.description or ())
        return QueryResult(columns, cursor.fetchall() if columns else [])
    except duckdb.Error as exc:
        raise ExportError(f"query failed: {_first_line(exc)}") from None
    finally:
        db.close()


def _confined(roots: Sequence[Path]) -> Any:
    import duckdb

    resolved = [root.resolve() for root in roots]
    for root in resolved:
        if not root.is_dir():
            raise ExportError(f"--from {root}: not a directory")
        if not any(root.glob(f"{RECORDS}/repo=*/part-*.parquet")):
            raise ExportError(
                f"--from {root}: no export there (expected {RECORDS}/repo=NAME/part-*.parquet; "
                "write one with `intent-ls export --out DIR`)"
            )
    db = duckdb.connect()
    db.execute("SET TimeZone = 'UTC'")
    db.execute("SET autoinstall_known_extensions = false")
    db.execute("SET allowed_directories = $dirs", {"dirs": [f"{r}/" for r in resolved]})
    db.execute("SET enable_external_access = false")
    for table in (RECORDS, TOUCHES):
        globs = _literal_list(export_globs(resolved, table))
        db.execute(
            f"CREATE VIEW {table} AS SELECT * FROM read_parquet({globs}, "
            "hive_partitioning = true, union_by_name = true)"
        )
    db.execute("SET lock_configuration = true")
    return db


def _literal_list(values: list[str]) -> str:
    """A SQL list literal (a view's definition cannot hold parameters)."""
    return "[" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + "]"


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def render(result: QueryResult, fmt: str) -> str:
    if fmt == "json":
        rows = [dict(zip(result.columns, map(_plain, row), strict=True)) for row in result.rows]
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(result.columns)
        writer.writerows([_cell(value) for value in row] for row in result.rows)
        return buffer.getvalue()
    return _table(result)


def _table(result: QueryResult) -> str:
    cells = [[_visible(c) for c in result.columns]]
    cells += [[_visible(_cell(v)) for v in row] for row in result.rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(result.columns))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append(f"({len(result.rows)} row{'s' if len(result.rows) != 1 else ''})")
    return "\n".join(lines) + "\n"


def _visible(text: str) -> str:
    """A table cell on one line, with no control character to reach the terminal (a
    ledger's messages and paths come from whoever wrote the repository)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _plain(value: Any) -> Any:
    """A DuckDB value as JSON: times in RFC 3339 UTC, decimals as numbers."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC)
            return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return value.isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    plain = _plain(value)
    if isinstance(plain, list | dict):
        return json.dumps(plain, ensure_ascii=False, separators=(",", ":"))
    return str(plain)
