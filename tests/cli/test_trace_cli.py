from __future__ import annotations

import json
from pathlib import Path

import pytest

from intent_ls.cli.main import main
from intent_ls.ledger.store import Ledger, ledger_path
from tests.core.ledger.ledger_helpers import mutation


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ledger = Ledger(ledger_path(tmp_path), fsync=False)
    ledger.append(mutation(tmp_path, 1, intent="INT-001", path="a.py"))
    ledger.append(mutation(tmp_path, 2, intent="INT-002", path="b.py"))
    return tmp_path


def test_verify_ok(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trace", "verify", "--workspace", str(ws)]) == 0
    assert "2 records" in capsys.readouterr().out


def test_verify_reports_first_bad_line(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = ledger_path(ws)
    data = path.read_bytes()
    path.write_bytes(data.replace(b"INT-002", b"INT-003", 1))
    assert main(["trace", "verify", "--workspace", str(ws)]) == 1
    err = capsys.readouterr().err
    assert ":2:" in err and "digest" in err


def test_show_filters_and_formats(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trace", "show", "--workspace", str(ws), "--intent", "INT-002"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "INT-002" in out[0] and "b.py" in out[0]
    assert main(["trace", "show", "-w", str(ws), "--file", "a.py", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["files"][0]["path"] for r in records] == ["a.py"]


def test_map_writes_intent_map(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["map", "--workspace", str(ws)]) == 0
    text = (ws / ".orchestration" / "intent_map.md").read_text()
    assert "INT-001" in text and "INT-002" in text
    assert main(["map", "--workspace", str(ws)]) == 0
    assert "unchanged" in capsys.readouterr().out


def test_help_lists_trace_verbs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["trace", "--help"])
    assert "verify" in capsys.readouterr().out
