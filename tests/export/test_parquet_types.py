"""The export's Parquet files carry the types Spark, BigQuery and Trino read without a
conversion, checked in the files' own schema (not through a reader that might adapt):
``ts`` an INT64 TIMESTAMP adjusted to UTC in microseconds (not INT96, not nanoseconds,
which BigQuery and older Spark refuse or misread), every list the standard three-level
LIST (``<name> (LIST) / repeated group list / element``), and Hive-style partition
directories."""

from __future__ import annotations

from pathlib import Path

import duckdb
from export_helpers import Workspace

PARQUET_LISTS = {"parents", "verdicts", "approvals"}


def _schema(part: Path) -> list[tuple[str, str | None, str, str | None, str | None, int | None]]:
    return duckdb.sql(
        "SELECT name, type, repetition_type, converted_type, logical_type, num_children "
        "FROM parquet_schema($file)",
        params={"file": str(part)},
    ).fetchall()


def test_timestamps_lists_and_partitions_as_other_engines_read_them(
    recorded: Workspace, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    done = recorded.cli("export", "--out", str(out), "--repo", "acme/shop")
    assert done.returncode == 0, done.stderr
    [records] = (out / "records" / "repo=acme%2Fshop").glob("part-*.parquet")
    [touches] = (out / "touches" / "repo=acme%2Fshop").glob("part-*.parquet")
    schema = _schema(records)
    by_name = {row[0]: row for row in schema}
    _, physical, _, converted, logical, _ = by_name["ts"]
    assert (physical, converted) == ("INT64", "TIMESTAMP_MICROS")
    assert logical is not None
    assert "isAdjustedToUTC=1" in logical and "MICROS=MicroSeconds()" in logical
    assert not any(row[1] == "INT96" for row in schema + _schema(touches))
    for i, row in enumerate(schema):
        if row[0] in PARQUET_LISTS:
            wrapper, element = schema[i + 1], schema[i + 2]
            assert (row[3], row[5]) == ("LIST", 1), row
            assert (wrapper[0], wrapper[2], wrapper[5]) == ("list", "REPEATED", 1), wrapper
            assert element[0] == "element" and element[2] in ("OPTIONAL", "REQUIRED"), element
    assert {row[0] for row in schema if row[3] == "LIST"} == PARQUET_LISTS
    # The partition value lives in the directory name only, as Hive-style readers expect.
    assert "repo" not in by_name
