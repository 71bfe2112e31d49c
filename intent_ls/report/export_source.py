"""Report figures for many repositories, read from ``intent-ls export`` Parquet files.

Each exported row keeps the canonical ledger ``line``, so the figures are computed by the
same code as for a workspace (:func:`~intent_ls.report.ledger_source.add_record`) from the
same bytes: the page cannot disagree with the ledgers it was exported from. Rows are read
once per ``(repo, digest)``, as a reader of an at-least-once export must.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from intent_ls.report.ledger_source import add_record, resolve_verdicts
from intent_ls.report.model import RepoTally

#: The records table's parts in an export: ``records/repo=NAME/part-*.parquet``, NAME
#: percent-encoded as Hive partition values are (DuckDB decodes it into ``repo``); names
#: starting with ``.`` are an exporter's unfinished files.
RECORDS_DIR = "records"
PARTS = "repo=*/part-*.parquet"


class ExportError(Exception):
    """The export directory cannot be read as one (missing, empty, duckdb absent)."""


def record_files(export_dir: Path) -> list[Path]:
    if not export_dir.is_dir():
        raise ExportError(f"{export_dir}: not a directory (an `intent-ls export --out` one)")
    files = sorted((export_dir / RECORDS_DIR).glob(PARTS))
    if not files:
        raise ExportError(
            f"{export_dir}: no {RECORDS_DIR}/repo=NAME/part-*.parquet files; "
            "write them with `intent-ls export --out DIR`"
        )
    return files


def collect_export(export_dir: Path) -> list[RepoTally]:
    """One tally per repository, by name. DuckDB may read the export directory and
    nothing else (no other file, no extension download)."""
    import duckdb

    files = record_files(export_dir.resolve())
    con = duckdb.connect()
    try:
        con.execute("SET autoinstall_known_extensions = false")
        con.execute("SET allowed_directories = $dirs", {"dirs": [f"{export_dir.resolve()}/"]})
        con.execute("SET enable_external_access = false")
        rows = con.execute(
            "SELECT repo, any_value(line) FROM read_parquet(?, hive_partitioning = true, "
            "hive_types = {'repo': VARCHAR}, union_by_name = true) "
            "GROUP BY repo, digest ORDER BY repo, min(ts), digest",
            [[str(f) for f in files]],
        ).fetchall()
    except duckdb.Error as exc:
        raise ExportError(f"{export_dir}: cannot read the export: {exc}") from exc
    finally:
        con.close()
    tallies: dict[str, RepoTally] = {}
    pending: dict[str, list[Any]] = {}
    for repo, line in rows:
        name = str(repo)
        tally = tallies.get(name)
        if tally is None:
            tally = tallies[name] = RepoTally(name, origin=f"{export_dir}/{RECORDS_DIR}")
            pending[name] = []
        try:
            record = json.loads(line)
        except (TypeError, ValueError, RecursionError):
            continue
        if isinstance(record, dict):
            add_record(tally, record, pending[name])
    for name, tally in tallies.items():
        resolve_verdicts(tally, pending[name])
    return [tallies[name] for name in sorted(tallies)]
