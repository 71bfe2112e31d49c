"""Reading the ledger backwards (no index): the same records the index names, exactly."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from intent_ls.ledger import lookup, tail
from intent_ls.ledger.history import recent_history, tail_history
from intent_ls.ledger.index import CACHE_RELPATH, TraceIndex
from intent_ls.ledger.lookup import path_records
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.ledger.tail import TailScan, records_touching
from tests.core.ledger.ledger_helpers import mutation


def test_candidates_come_newest_first_whatever_the_block_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rnd = random.Random(1)
    path = tmp_path / "ledger.jsonl"
    for trial in range(200):
        monkeypatch.setattr(tail, "_BLOCK", rnd.choice([1, 2, 3, 5, 8, 64, 1024 * 1024]))
        lines = [
            rnd.choice(
                [b"", b"xx", b"a WANTED", b"a\\b", b"WANTEDWANTED", b"q" * rnd.randint(0, 40)]
            )
            for _ in range(rnd.randint(0, 30))
        ]
        torn = rnd.choice([b"", b"torn WANTED", b"\\"])
        path.write_bytes(b"".join(line + b"\n" for line in lines) + torn)
        offsets, at = [], 0
        for line in lines:
            offsets.append(at)
            at += len(line) + 1
        want = [
            (o, line)
            for o, line in zip(offsets, lines, strict=True)
            if b"WANTED" in line or b"\\" in line
        ]
        scan = TailScan(path, b"WANTED")
        assert list(scan.lines()) == want[::-1], trial
        assert scan.complete


def test_a_bounded_scan_says_it_is_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(b"WANTED\n" + b"x" * 100 + b"\n" + b"WANTED 2\n")
    scan = TailScan(path, b"WANTED", max_bytes=50)
    monkeypatch.setattr(tail, "_BLOCK", 16)
    assert [line for _, line in scan.lines()] == [b"WANTED 2"]
    assert not scan.complete


def hostile_ledger(root: Path) -> Path:
    """Real records of two intents and files, plus what a ledger edited by hand or by
    other tools holds: an escaped intent id, a damaged line, a torn tail."""
    ledger = Ledger(ledger_path(root), fsync=False)
    for i in range(30):
        ledger.append(mutation(root, i, intent=f"INT-00{1 + i % 2}", path=f"src/m{i % 3}.py"))
    path = ledger_path(root)
    escaped = json.loads(path.read_text().splitlines()[3])
    escaped["metadata"]["intent_ls"]["intent_id"] = "INT-001"
    line = json.dumps(escaped, sort_keys=True).replace('"INT-001"', '"\\u0049NT-001"')
    with path.open("a") as f:
        f.write(line + "\n")
        f.write("{not json\n")
        f.write('{"files": [{"path": "src/m1.py"')  # torn: an append in progress
    return path


def test_recent_history_from_the_tail_equals_the_index(tmp_path: Path) -> None:
    path = hostile_ledger(tmp_path)
    index = TraceIndex(path, tmp_path / "index.sqlite")
    for intent in ("INT-001", "INT-002", "INT-404"):
        for limit in (1, 3, 5, 40):
            found, complete = tail_history(path, intent, limit, None)
            assert complete
            assert found == recent_history(index, intent, limit), (intent, limit)
    assert tail_history(path, "INT-001", 5, None)[0][0]["when"]  # the escaped one is found
    index.close()


def test_a_files_records_from_the_tail_equal_the_index(tmp_path: Path) -> None:
    path = hostile_ledger(tmp_path)
    index = TraceIndex(path, tmp_path / "index.sqlite")
    for rel in ("src/m0.py", "src/m1.py", "src/none.py"):
        for limit in (1, 4, 100):
            found, complete = records_touching(path, rel, limit, None)
            assert complete
            expected = [index.load_record(r) for r in index.records_for_path(rel, limit)]
            assert [r for _, r in found] == expected, (rel, limit)
    index.close()


def test_path_records_never_build_a_cold_index_of_a_big_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hostile_ledger(tmp_path)

    warm = path_records(tmp_path, "src/m1.py")  # small: through the index, built here
    assert (tmp_path / CACHE_RELPATH).exists()
    (tmp_path / CACHE_RELPATH).unlink()
    monkeypatch.setattr(lookup, "CATCH_UP_LIMIT", 10)
    cold = path_records(tmp_path, "src/m1.py")
    assert cold == warm
    assert not (tmp_path / CACHE_RELPATH).exists()
    assert path_records(tmp_path, "src/m1.py", 2) == warm[:2]


def test_a_bounded_history_read_is_the_newest_part_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = hostile_ledger(tmp_path)
    monkeypatch.setattr(tail, "_BLOCK", 4096)  # the bound is checked between blocks
    full, complete = tail_history(path, "INT-002", 40, None)
    assert complete and len(full) == 15
    size = path.stat().st_size
    part, complete = tail_history(path, "INT-002", 40, size // 3)
    assert not complete and part and part == full[: len(part)]
