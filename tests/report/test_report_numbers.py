"""The report's figures equal the ledger's, computed here independently from the JSONL."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from intent_ls.cli.main import main
from intent_ls.report import ledger_source
from tests.report.conftest import IMG, SCRIPT, LedgerWorkspace
from tests.report.page_figures import read_figures


def expected_from_jsonl(ledger: Path) -> dict[str, Any]:
    """What the page must say, straight from the ledger lines: changed lines are the lines
    of a mutation record's ranges, per contributor."""
    per_intent_records: Counter[str] = Counter()
    per_intent_lines: Counter[str] = Counter()
    per_intent_files: dict[str, set[str]] = {}
    per_intent_nodes: dict[str, set[tuple[str, str]]] = {}
    by_type: Counter[str] = Counter()
    by_model: Counter[str] = Counter()
    per_day: Counter[str] = Counter()
    total = 0
    for line in ledger.read_text().splitlines():
        record = json.loads(line)
        meta = record["metadata"]["intent_ls"]
        intent = meta["intent_id"] or "(no intent)"
        total += 1
        per_intent_records[intent] += 1
        per_day[record["timestamp"][:10]] += 1
        if meta["kind"] != "mutation":
            continue
        for file in record["files"]:
            per_intent_files.setdefault(intent, set()).add(file["path"])
            for conv in file["conversations"]:
                n = sum(r["end_line"] - r["start_line"] + 1 for r in conv["ranges"])
                by_type[conv["contributor"]["type"]] += n
                by_model[conv["contributor"].get("model_id", "(none)")] += n
                per_intent_lines[intent] += n
        for node in meta["ast_nodes"]:
            per_intent_nodes.setdefault(intent, set()).add((node["path"], node["name"]))
    return {
        "records": total,
        "per_intent_records": per_intent_records,
        "per_intent_lines": per_intent_lines,
        "per_intent_files": {k: len(v) for k, v in per_intent_files.items()},
        "per_intent_nodes": {k: len(v) for k, v in per_intent_nodes.items()},
        "by_type": by_type,
        "by_model": by_model,
        "per_day": per_day,
    }


def report(ws: LedgerWorkspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    out = tmp_path / "report.html"
    assert main(["report", "--workspace", str(ws.root), "--out", str(out)]) == 0
    assert f"report: {out}" in capsys.readouterr().out
    return out.read_text()


def test_every_figure_on_the_page_equals_the_ledgers(
    ledger_ws: LedgerWorkspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = read_figures(report(ledger_ws, tmp_path, capsys))
    want = expected_from_jsonl(ledger_ws.ledger.path)
    repo = ledger_ws.root.name

    def fig(key: str, value: str, field: str) -> str:
        return figures[(repo, key, value, field)]

    assert fig("", "", "records") == str(want["records"])
    by_type = want["by_type"]
    assert isinstance(by_type, Counter)
    assert fig("", "", "lines") == str(sum(by_type.values()))
    assert fig("", "", "ai-share") == f"{100 * by_type['ai'] / sum(by_type.values()):.1f}%"
    for ctype in ("ai", "human", "mixed", "unknown"):
        assert fig("data-type", ctype, "lines") == str(by_type[ctype])
    by_model = want["by_model"]
    assert isinstance(by_model, Counter)
    assert len(by_model) == 3  # two models and "(none)": the fixture is varied enough
    for model, n in by_model.items():
        assert fig("data-model", model, "lines") == str(n)
    per_day = want["per_day"]
    assert isinstance(per_day, Counter)
    for day, n in per_day.items():
        assert fig("data-bucket", day, "records") == str(n)
    intents = {"INT-AUTH", "INT-DOCS", "INT-IDLE", "(no intent)"}
    assert fig("", "", "intents") == str(len(intents))
    for intent in intents:
        for field, table in (
            ("records", "per_intent_records"),
            ("lines", "per_intent_lines"),
            ("files", "per_intent_files"),
            ("nodes", "per_intent_nodes"),
        ):
            expected = want[table]
            assert isinstance(expected, dict)
            assert fig("data-intent", intent, field) == str(expected.get(intent, 0)), (
                intent,
                field,
            )


def test_verdicts_are_open_until_an_approval_names_their_content(
    ledger_ws: LedgerWorkspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = report(ledger_ws, tmp_path, capsys)
    figures = read_figures(page)
    # out-of-scope on lib/util.py was approved by a later approval record; stale-file
    # on lib/other.py never was.
    assert figures[(ledger_ws.root.name, "", "", "open-verdicts")] == "1"
    assert page.count('data-open="true"') == 1
    assert page.count('data-open="false"') == 1
    assert "approved by human" in page
    assert "1 open, 1 approved" in page


def test_hostile_ledger_and_spec_text_is_shown_not_run(
    ledger_ws: LedgerWorkspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = report(ledger_ws, tmp_path, capsys)
    lowered = page.lower()
    assert "<script" not in lowered
    assert "<img" not in lowered
    assert "<iframe" not in lowered
    # Each hostile string reached the page (intent name, model id, verdict message,
    # lesson, path, acceptance criterion) as text.
    assert page.count("&lt;script&gt;document.title=&#x27;pwned&#x27;&lt;/script&gt;") >= 5
    assert "&lt;img src=x onerror=alert(document.domain)&gt;" in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert SCRIPT not in page and IMG not in page


def test_the_page_is_the_same_bytes_for_the_same_ledger(
    ledger_ws: LedgerWorkspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert report(ledger_ws, tmp_path, capsys) == report(ledger_ws, tmp_path, capsys)


@pytest.mark.parametrize("beside", [False, True], ids=["inline", "second-process"])
def test_a_tampered_ledger_is_reported_on_the_page(
    ledger_ws: LedgerWorkspace,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    beside: bool,
) -> None:
    """Verification runs inline for a small ledger and in a second process for a big
    one; both ways the page says where the ledger breaks."""
    if beside:
        monkeypatch.setattr(ledger_source, "PARALLEL_VERIFY_BYTES", 0)
    path = ledger_ws.ledger.path
    path.write_bytes(path.read_bytes().replace(b'"type":"human"', b'"type":"ai"', 1))
    page = report(ledger_ws, tmp_path, capsys)
    assert 'data-field="ledger-problem"' in page
    assert "fails verification" in page and "line 3" in page


def test_spec_errors_are_said_on_the_page(
    ledger_ws: LedgerWorkspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = ledger_ws.root / ".orchestration" / "active_intents.yaml"
    spec.write_text(spec.read_text().replace("status: DRAFT", "status: SOMEDAY"))
    page = report(ledger_ws, tmp_path, capsys)
    assert 'data-field="spec-problems"' in page
    assert "SOMEDAY" in page


def test_default_output_is_in_the_uncommitted_local_directory(
    ledger_ws: LedgerWorkspace, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--workspace", str(ledger_ws.root)]) == 0
    written = ledger_ws.root / ".orchestration" / ".local" / "report.html"
    assert written.read_text().startswith("<!doctype html>")
    assert "report.html" in capsys.readouterr().out


def test_a_workspace_without_ledger_or_lessons_still_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "empty"
    (root / ".orchestration").mkdir(parents=True)
    (root / ".orchestration" / "active_intents.yaml").write_text(
        "active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    owned_scope: [a/]\n"
    )
    out = tmp_path / "r.html"
    assert main(["report", "--workspace", str(root), "--out", str(out)]) == 0
    figures = read_figures(out.read_text())
    assert figures[("empty", "", "", "records")] == "0"
    assert figures[("empty", "data-intent", "A", "records")] == "0"


def test_bad_arguments_are_one_line_errors(
    ledger_ws: LedgerWorkspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--from", str(tmp_path)]) == 2
    assert "--from needs --out" in capsys.readouterr().err
    target = tmp_path / "elsewhere.html"
    link = tmp_path / "link.html"
    link.symlink_to(target)
    assert main(["report", "--workspace", str(ledger_ws.root), "--out", str(link)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("intent-ls: error:") and "Traceback" not in err
    assert not target.exists()


def test_oddly_shaped_ledger_lines_do_not_stop_the_report(
    ledger_ws: LedgerWorkspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = [
        "not json",
        "[1, 2]",
        '{"timestamp": 5, "files": "x", "metadata": {"intent_ls": {"kind": "mutation", '
        '"intent_id": 5, "ast_nodes": "y", "verdicts": [1, {"code": {}}], "approvals": 3}}}',
        '{"metadata": {"intent_ls": {"kind": "mutation", "intent_id": "INT-ODD"}}, "files": '
        '[{"path": "a", "conversations": [{"contributor": "ai", "ranges": '
        '[{"start_line": "1", "end_line": 9}, 7]}, 3]}, 4]}',
        '{"metadata": {"intent_ls": {"kind": "approval", "approvals": [{"approver": 1}]}}}',
        "[" * 100_000,
    ]
    with ledger_ws.ledger.path.open("a") as f:
        f.write("\n".join(odd) + "\n")
    page = report(ledger_ws, tmp_path, capsys)
    figures = read_figures(page)
    assert 'data-field="ledger-problem"' in page
    repo = ledger_ws.root.name
    # The well-formed records are all counted; the odd ones add no changed line.
    want = expected_from_jsonl_prefix(ledger_ws.ledger.path, len(odd))
    assert figures[(repo, "", "", "lines")] == str(sum(want["by_type"].values()))
    assert figures[(repo, "data-intent", "INT-ODD", "lines")] == "0"


def expected_from_jsonl_prefix(ledger: Path, drop: int) -> dict[str, Any]:
    lines = ledger.read_text().splitlines()[:-drop]
    trimmed = ledger.parent / "trimmed.jsonl"
    trimmed.write_text("\n".join(lines) + "\n")
    return expected_from_jsonl(trimmed)
