"""Spark (local mode: PyPI's ``pyspark`` on a JRE) reads an ``intent-ls export`` of
several repositories as written, with no conversion: ``repo`` decoded from the
``repo=acme%2Fshop`` directories, ``ts`` a timestamp, the nested fields arrays of
structs; and it answers every named query of ``intent-ls export --query`` exactly as
DuckDB does, compared as the CSV the CLI prints.

Where pyspark or Java is missing the tests skip, except with ``INTENT_LS_REQUIRE_SPARK=1``
(as ``.ci/run`` sets after installing both), where that is a failure."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from export_helpers import AI, Workspace, out_of_scope, sample_saves

from intent_ls.export.query import NAMED_QUERIES, QueryResult, render, run_query
from intent_ls.policy.approvals import Contributor
from tests.support import readme_section

pytestmark = pytest.mark.slow

#: Spark's text of each named query (``intent_ls.export.query.NAMED_QUERIES``, written
#: for DuckDB): the same rows in the same order. Times are formatted as the CLI prints
#: DuckDB's (RFC 3339, UTC, microseconds); DuckDB sorts NULLs last in either direction.
UTC = "\"yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'\""
LINES = "t.end_line - t.start_line + 1"
SPARK_SQL: dict[str, str] = {
    "ai-share": f"""
SELECT r.repo, r.intent_id,
  sum({LINES}) AS lines,
  sum({LINES}) FILTER (WHERE r.contributor_type = 'ai') AS ai,
  sum({LINES}) FILTER (WHERE r.contributor_type = 'human') AS human,
  sum({LINES}) FILTER (WHERE r.contributor_type = 'mixed') AS mixed,
  sum({LINES}) FILTER (WHERE r.contributor_type = 'unknown') AS unknown,
  round(coalesce(sum({LINES}) FILTER (WHERE r.contributor_type = 'ai'), 0)
        / sum({LINES}), 4) AS ai_share
FROM records r JOIN touches t ON t.repo = r.repo AND t.digest = r.digest
WHERE r.kind = 'mutation' AND t.name IS NULL
GROUP BY r.repo, r.intent_id ORDER BY r.repo NULLS LAST, r.intent_id NULLS LAST
""",
    "changed-path": f"""
SELECT r.repo, date_format(r.ts, {UTC}) AS ts, r.intent_id, r.kind, r.contributor_type,
  r.model_id, t.path, nullif(array_join(array_sort(collect_set(t.name)), ', '), '')
  AS definitions, r.digest
FROM records r JOIN touches t ON t.repo = r.repo AND t.digest = r.digest
WHERE t.path = trim(TRAILING '/' FROM :path)
  OR startswith(t.path, trim(TRAILING '/' FROM :path) || '/')
GROUP BY r.repo, r.ts, r.intent_id, r.kind, r.contributor_type, r.model_id, t.path, r.digest
ORDER BY r.ts NULLS LAST, r.repo NULLS LAST, t.path NULLS LAST
""",
    "open-verdicts": f"""
WITH verdicts AS (
  SELECT r.repo, r.ts, r.intent_id, r.digest, v.code, v.message,
    (SELECT max(t.path) FROM touches t WHERE t.repo = r.repo AND t.digest = r.digest
     AND t.name IS NULL) AS path
  FROM records r LATERAL VIEW explode(r.verdicts) u AS v
  WHERE r.kind = 'mutation'
), approved AS (
  SELECT DISTINCT r.repo, a.verdict_code, a.path
  FROM records r LATERAL VIEW explode(r.approvals) u AS a
)
SELECT v.repo, date_format(v.ts, {UTC}) AS ts, v.intent_id, v.path, v.code, v.message,
  v.digest
FROM verdicts v LEFT ANTI JOIN approved a
  ON a.repo = v.repo AND a.verdict_code = v.code AND a.path <=> v.path
ORDER BY v.ts NULLS LAST, v.repo NULLS LAST
""",
    "records-per-model": f"""
SELECT repo, contributor_type, model_id, count(*) AS records,
  date_format(min(ts), {UTC}) AS first_ts, date_format(max(ts), {UTC}) AS last_ts
FROM records WHERE kind <> 'merge'
GROUP BY repo, contributor_type, model_id
ORDER BY repo NULLS LAST, records DESC, model_id NULLS LAST
""",
}
PARAMS = {"changed-path": {"path": "src/"}}
REPOS = ("acme/shop", "acme/pay", "solo")


def _unavailable(why: str) -> None:
    if os.environ.get("INTENT_LS_REQUIRE_SPARK") == "1":
        pytest.fail(f"INTENT_LS_REQUIRE_SPARK=1 but {why}", pytrace=False)
    pytest.skip(why)


@pytest.fixture(scope="module")
def spark_session_class() -> Any:
    """pyspark's ``SparkSession``, once pyspark and Java are known to be there."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        _unavailable("pyspark is not installed (pip install pyspark)")
    if shutil.which("java") is None:
        _unavailable("Spark needs Java 17 or later on PATH (apt-get install default-jre-headless)")
    return SparkSession


@pytest.fixture(scope="module")
def spark(spark_session_class: Any) -> Iterator[Any]:
    session = (
        spark_session_class.builder.master("local[1]")
        .appName("intent-ls-export-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[bytes]]:
    """One export root holding three repositories' exports, and every ledger line."""
    base = tmp_path_factory.mktemp("spark")
    out = base / "ledger-export"
    shop = sample_saves(Workspace(base / "shop"))
    pay = Workspace(base / "pay")
    pay.save("src/billing/refund.py", "def refund(x):\n    return -x\n")
    pay.save(
        "src/billing/refund.py",
        "def refund(x):\n    return -x\n\n\ndef void():\n    pass\n",
        contributor=Contributor("ai", "openai/gpt-test"),
    )
    pay.save("src/auth/keys.py", "KEY = 1\n", intent="INT-002", contributor=Contributor("mixed"))
    pay.save("ops/deploy.sh", "echo hi\n", verdicts=(out_of_scope("ops/deploy.sh"),))
    solo = Workspace(base / "solo")
    solo.save("src/auth/login.py", "def login():\n    return 1\n", contributor=AI)
    solo.save(
        "src/auth/login.py", "def login():\n    return 2\n", contributor=Contributor("unknown")
    )
    lines = []
    for ws, name in zip((shop, pay, solo), REPOS, strict=True):
        done = ws.cli("export", "--out", str(out), "--repo", name)
        assert done.returncode == 0, done.stderr
        lines += ws.lines()
    return out, lines


def _views(spark: Any, out: Path) -> tuple[Any, Any]:
    records = spark.read.parquet(str(out / "records"))
    touches = spark.read.parquet(str(out / "touches"))
    records.createOrReplaceTempView("records")
    touches.createOrReplaceTempView("touches")
    return records, touches


def test_spark_reads_the_export_as_written(spark: Any, exported: tuple[Path, list[bytes]]) -> None:
    out, lines = exported
    records, touches = _views(spark, out)
    types = dict(records.dtypes)
    assert types["ts"] == "timestamp"
    assert types["repo"] == "string"
    assert types["parents"] == "array<string>"
    assert types["verdicts"] == "array<struct<code:string,message:string,details:string>>"
    assert types["approvals"].startswith("array<struct<verdict_code:string,path:string,")
    assert dict(touches.dtypes)["start_line"] == "bigint"
    assert {r.repo for r in records.select("repo").distinct().collect()} == set(REPOS)
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
        .select("repo", "intent_id")
        .collect()
    )
    assert [(r.repo, r.intent_id) for r in joined] == [("acme/shop", "INT-001")]


@pytest.mark.parametrize("name", sorted(NAMED_QUERIES))
def test_spark_answers_each_named_query_as_duckdb(
    spark: Any, exported: tuple[Path, list[bytes]], name: str
) -> None:
    assert set(SPARK_SQL) == set(NAMED_QUERIES)  # a new named query needs its Spark text
    out, _ = exported
    _views(spark, out)
    duckdb_csv = render(run_query([out], name, PARAMS.get(name, {})), "csv")
    frame = spark.sql(SPARK_SQL[name], args=PARAMS.get(name))
    rows = [tuple(row) for row in frame.collect()]
    spark_csv = render(QueryResult(tuple(frame.columns), rows), "csv")
    assert spark_csv == duckdb_csv
    answered = {line.split(",", 1)[0] for line in duckdb_csv.splitlines()[1:]}
    assert answered == set(REPOS) if name != "open-verdicts" else {"acme/shop", "acme/pay"}


def test_the_readme_spark_query_runs_as_written(
    spark_session_class: Any, exported: tuple[Path, list[bytes]]
) -> None:
    """The README's Spark snippet, beside the DuckDB commands, run as a script from a
    clone beside the export (``../ledger-export``: Spark resolves it against its own
    process's directory, hence a process of its own); it prints what ``--query ai-share``
    prints."""
    [snippet] = _python_blocks(readme_section("<!-- intent-ls export", "<!-- end intent-ls export"))
    out, _ = exported
    clone = out.parent / "clone"
    clone.mkdir(exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-c", snippet],
        cwd=clone,
        env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"},
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    shown = [line.split("|")[1:-1] for line in done.stdout.splitlines() if "|" in line]
    header, *rows = [[cell.strip() for cell in row] for row in shown]
    assert header == ["repo", "intent_id", "lines", "ai_share"]
    answer = run_query([out], "ai-share", {})
    columns = [answer.columns.index(c) for c in header]
    assert rows == [[str(row[i]) for i in columns] for row in answer.rows]
    assert {row[0] for row in rows} == set(REPOS)


def _python_blocks(text: str) -> list[str]:
    import re

    return re.findall(r"```python\n(.+?)\n```", text, flags=re.S)
