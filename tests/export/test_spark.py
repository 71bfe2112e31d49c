"""Spark (local mode, from PyPI's ``pyspark``) reads an export as written: the ``repo``
partition decoded from ``repo=acme%2Fshop``, ``ts`` a UTC timestamp, ``records`` joining
``touches`` on (repo, digest). Skipped where pyspark or Java is missing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from export_helpers import Workspace

pyspark_sql = pytest.importorskip("pyspark.sql", reason="pyspark is not installed")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def spark():  # type: ignore[no-untyped-def]  # pyspark ships no type hints
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java (17 or later) on PATH")
    session = (
        pyspark_sql.SparkSession.builder.master("local[1]")
        .appName("intent-ls-export-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    yield session
    session.stop()


def test_spark_reads_the_export(spark, recorded: Workspace, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "export"
    done = recorded.cli("export", "--out", str(out), "--repo", "acme/shop")
    assert done.returncode == 0, done.stderr
    records = spark.read.parquet(str(out / "records"))
    touches = spark.read.parquet(str(out / "touches"))
    assert dict(records.dtypes)["ts"] == "timestamp"
    assert [r.repo for r in records.select("repo").distinct().collect()] == ["acme/shop"]
    lines = recorded.lines()
    utc = "date_format(ts, \"yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'\") AS ts_utc"
    rows = {r.digest: r for r in records.selectExpr("digest", "line", utc).collect()}
    assert len(rows) == len(lines)
    for line in lines:
        record = json.loads(line)
        row = rows[record["metadata"]["intent_ls"]["digest"]]
        assert row.line.encode() == line
        assert row.ts_utc == record["timestamp"]
    joined = (
        records.join(touches, ["repo", "digest"])
        .where("name = 'Invoice.pay'")
        .select("intent_id")
        .collect()
    )
    assert [r.intent_id for r in joined] == ["INT-001"]
