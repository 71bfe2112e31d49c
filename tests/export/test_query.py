"""``intent-ls export --query``: SQL and named queries over exports, with numbers checked
against the ledger computed independently (json, no DuckDB)."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from pathlib import Path

import pytest
from export_helpers import Workspace

from intent_ls.policy.approvals import Contributor


@pytest.fixture
def out(recorded: Workspace, tmp_path: Path) -> Path:
    out = tmp_path / "export"
    done = recorded.cli("export", "--out", str(out), "--repo", "acme/shop")
    assert done.returncode == 0, done.stderr
    return out


def run(ws: Workspace, out: Path, query: str, *extra: str) -> str:
    done = ws.cli("export", "--query", query, "--from", str(out), *extra)
    assert done.returncode == 0, done.stderr
    return done.stdout


def as_json(ws: Workspace, out: Path, query: str, *extra: str) -> list[dict]:
    return json.loads(run(ws, out, query, "--format", "json", *extra))


def records(ws: Workspace) -> list[dict]:
    return [json.loads(line) for line in ws.lines()]


def test_ai_share_per_intent_equals_the_ledgers_changed_lines(
    recorded: Workspace, out: Path
) -> None:
    lines: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for record in records(recorded):
        meta = record["metadata"]["intent_ls"]
        if meta["kind"] != "mutation":
            continue
        for file in record["files"]:
            for conv in file["conversations"]:
                who = conv["contributor"]["type"]
                for r in conv["ranges"]:
                    lines[meta["intent_id"]][who] += r["end_line"] - r["start_line"] + 1
    rows = as_json(recorded, out, "ai-share")
    assert [r["intent_id"] for r in rows] == sorted(lines)
    for row in rows:
        counts = lines[row["intent_id"]]
        total = sum(counts.values())
        assert row["repo"] == "acme/shop"
        assert row["lines"] == total
        assert (row["ai"] or 0, row["human"] or 0) == (counts["ai"], counts["human"])
        assert row["ai_share"] == pytest.approx(round(counts["ai"] / total, 4))
    assert any(0 < row["ai_share"] < 1 for row in rows)  # INT-002 has both


def test_what_changed_a_path(recorded: Workspace, out: Path) -> None:
    expected = [
        r["metadata"]["intent_ls"]["digest"]
        for r in records(recorded)
        if r["files"][0]["path"].startswith("src/billing/")
    ]
    for path in ("src/billing", "src/billing/", "src/billing/invoice.py"):
        rows = as_json(recorded, out, "changed-path", "--param", f"path={path}")
        assert [r["digest"] for r in rows] == expected
        assert rows[-1]["definitions"] == "Invoice, Invoice.pay"
    assert as_json(recorded, out, "changed-path", "--param", "path=src/bill") == []


def test_open_verdicts_leave_out_the_approved_one(recorded: Workspace, out: Path) -> None:
    rows = as_json(recorded, out, "open-verdicts")
    assert [(r["path"], r["code"]) for r in rows] == [("docs/notes.md", "out-of-scope")]
    assert rows[0]["ts"].endswith("Z")


def test_records_per_model(recorded: Workspace, out: Path) -> None:
    recorded.save(
        "src/auth/tokens.py",
        "x = 1\n",
        intent="INT-002",
        contributor=Contributor("ai", "openai/gpt-test"),
    )
    done = recorded.cli("export", "--out", str(out), "--repo", "acme/shop")
    assert done.returncode == 0
    counts: dict[tuple[str, str | None], int] = defaultdict(int)
    for record in records(recorded):
        who = record["files"][0]["conversations"][0]["contributor"]
        counts[(who["type"], who.get("model_id"))] += 1
    rows = as_json(recorded, out, "records-per-model")
    assert {(r["contributor_type"], r["model_id"]): r["records"] for r in rows} == counts


def test_table_and_csv_output(recorded: Workspace, out: Path) -> None:
    sql = "SELECT repo, count(*) AS n FROM records GROUP BY repo"
    table = run(recorded, out, sql).splitlines()
    assert table[0].split() == ["repo", "n"]
    assert table[2].split() == ["acme/shop", str(len(recorded.lines()))]
    assert table[-1] == "(1 row)"
    rows = list(csv.reader(io.StringIO(run(recorded, out, sql, "--format", "csv"))))
    assert rows == [["repo", "n"], ["acme/shop", str(len(recorded.lines()))]]


def test_a_table_cell_cannot_reach_the_terminal_with_control_characters(
    recorded: Workspace, out: Path
) -> None:
    text = run(recorded, out, "SELECT 'a' || chr(27) || '[31m' || chr(10) || 'b' AS evil")
    assert "\x1b" not in text and "a\\x1b[31m\\nb" in text


def test_bad_sql_and_missing_parameters_exit_2_without_a_traceback(
    recorded: Workspace, out: Path, tmp_path: Path
) -> None:
    for args, says in (
        (("--query", "SELEC 1", "--from", str(out)), "query failed: Parser Error"),
        (("--query", "SELECT nope FROM records", "--from", str(out)), "query failed: Binder"),
        (("--query", "changed-path", "--from", str(out)), "needs --param path="),
        (("--query", "SELECT 1", "--from", str(tmp_path / "none")), "not a directory"),
        (("--query", "SELECT 1", "--from", str(tmp_path)), "no export there"),
        (("--query", "SELECT 1", "--from", str(out), "--param", "x"), "expected NAME=VALUE"),
    ):
        done = recorded.cli("export", *args)
        assert done.returncode == 2, args
        assert says in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_a_query_reads_the_exports_and_nothing_else(
    recorded: Workspace, out: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n1\n")
    for sql in (
        f"SELECT * FROM read_csv('{secret}')",
        f"COPY (SELECT 1) TO '{tmp_path / 'written.csv'}'",
        "SET enable_external_access = true",
        "INSTALL httpfs",
    ):
        done = recorded.cli("export", "--query", sql, "--from", str(out))
        assert done.returncode == 2, sql
        assert "query failed" in done.stderr
    assert not (tmp_path / "written.csv").exists()


def test_one_query_over_many_export_roots(tmp_path: Path) -> None:
    roots = []
    for name in ("acme/shop", "acme/auth"):
        ws = Workspace(tmp_path / name.replace("/", "-"))
        ws.save("src/billing/a.py", "x = 1\n")
        root = tmp_path / f"export-{name.replace('/', '-')}"
        assert ws.cli("export", "--out", str(root), "--repo", name).returncode == 0
        roots += ["--from", str(root)]
    rows = json.loads(
        ws.cli("export", "--query", "records-per-model", *roots, "--format", "json").stdout
    )
    assert sorted(r["repo"] for r in rows) == ["acme/auth", "acme/shop"]
