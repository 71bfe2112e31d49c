"""``intent-ls report --from``: many repositories' Parquet exports on one page.

The exports are written by the real ``intent-ls export`` (incrementally: a second run adds
a second part), and one part is copied under a second name, as an at-least-once upload to
a bucket can leave it: the report counts each record once.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import quote

import pytest

from intent_ls.cli.main import main
from intent_ls.policy.approvals import Contributor
from tests.report.conftest import build_ledger_workspace
from tests.report.page_figures import read_figures
from tests.report.test_report_numbers import expected_from_jsonl


def write_export(out: Path, repo: str, root: Path) -> None:
    """``intent-ls export --out OUT --repo REPO`` of the workspace at ``root``."""
    assert main(["export", "--out", str(out), "--repo", repo, "--workspace", str(root)]) == 0


def uploaded_twice(out: Path, repo: str) -> None:
    """Every part of ``repo`` copied under a second part name: the same records twice."""
    for table in ("records", "touches"):
        partition = out / table / f"repo={quote(repo, safe='-._')}"
        for n, part in enumerate(sorted(partition.glob("part-*.parquet"))):
            shutil.copyfile(part, partition / f"part-ffffffffffff{n:04x}.parquet")


def test_report_from_exports_covers_each_repository_with_its_ledgers_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shop = build_ledger_workspace(tmp_path / "shop")
    other = build_ledger_workspace(tmp_path / "other")
    export = tmp_path / "export"
    write_export(export, "acme/shop", shop.root)
    write_export(export, "12345", other.root)
    other.save("extra/new.py", "a = 1\nb = 2\n", "INT-EXTRA", Contributor("ai", "google/gemini"))
    write_export(export, "12345", other.root)
    assert len(list((export / "records" / "repo=12345").glob("part-*.parquet"))) == 2
    uploaded_twice(export, "acme/shop")
    assert len(list((export / "records" / "repo=acme%2Fshop").glob("part-*.parquet"))) == 2
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
