"""``intent-ls report --from``: many repositories' Parquet exports on one page.

The exports are written here with DuckDB in the layout and columns ``intent-ls export``
writes (``records/repo=NAME/part-*.parquet``, NAME percent-encoded, the canonical ``line``
kept), with every record exported twice, as a retried export would.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import duckdb
import pytest

from intent_ls.cli.main import main
from intent_ls.policy.approvals import Contributor
from tests.report.conftest import build_ledger_workspace
from tests.report.page_figures import read_figures
from tests.report.test_report_numbers import expected_from_jsonl


def write_export(out: Path, repo: str, ledger: Path) -> None:
    rows = []
    for line in ledger.read_text().splitlines():
        record = json.loads(line)
        meta = record["metadata"]["intent_ls"]
        rows.append((meta["digest"], record["id"], record["timestamp"], meta["kind"], line))
    part_dir = out / "records" / f"repo={quote(repo, safe='-._')}"
    part_dir.mkdir(parents=True)
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE r(digest VARCHAR, id VARCHAR, ts TIMESTAMPTZ, kind VARCHAR, line VARCHAR)"
    )
    con.executemany("INSERT INTO r VALUES (?, ?, ?, ?, ?)", rows)
    for n in range(2):
        target = part_dir / f"part-{n:016x}.parquet"
        con.execute(f"COPY r TO '{target}' (FORMAT parquet)")
    con.close()


def test_report_from_exports_covers_each_repository_with_its_ledgers_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shop = build_ledger_workspace(tmp_path / "shop")
    other = build_ledger_workspace(tmp_path / "other")
    other.save("extra/new.py", "a = 1\nb = 2\n", "INT-EXTRA", Contributor("ai", "google/gemini"))
    export = tmp_path / "export"
    write_export(export, "acme/shop", shop.ledger.path)
    write_export(export, "12345", other.ledger.path)
    out = tmp_path / "org.html"
    assert main(["report", "--from", str(export), "--out", str(out)]) == 0
    page = out.read_text()
    figures = read_figures(page)
    for repo, ws in (("acme/shop", shop), ("12345", other)):
        want = expected_from_jsonl(ws.ledger.path)
        assert figures[(repo, "", "", "records")] == str(want["records"])
        by_type = want["by_type"]
        assert figures[(repo, "", "", "lines")] == str(sum(by_type.values()))
        for intent, n in want["per_intent_lines"].items():
            assert figures[(repo, "data-intent", intent, "lines")] == str(n)
        for model, n in want["by_model"].items():
            assert figures[(repo, "data-model", model, "lines")] == str(n)
    # The overview has one row per repository, in name order.
    assert page.index('<tr data-repo="12345">') < page.index('<tr data-repo="acme/shop">')
    assert "Intent report: 2 repositories" in page
    assert "<script" not in page.lower()


def test_from_a_directory_without_an_export_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(["report", "--from", str(tmp_path), "--out", str(tmp_path / "r.html")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "no records/repo=NAME/part-*.parquet files" in err
    assert not (tmp_path / "r.html").exists()
