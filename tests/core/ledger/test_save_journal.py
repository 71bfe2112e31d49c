"""The save journal: entries of live processes are left alone, orphans are claimed once,
and a record id is found in the ledger wherever it falls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from intent_ls.ledger import journal


def dead_pid() -> int:
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(proc.stdout)


def test_an_entry_of_this_process_is_not_an_orphan(tmp_path: Path) -> None:
    path = journal.write_entry(tmp_path, "abc", {"id": "abc"})
    assert path.name == f"{os.getpid()}-abc.json"
    assert list(journal.orphans(tmp_path)) == []
    journal.remove_entry(path)
    assert not path.exists()


def test_an_orphan_is_claimed_under_this_pid_once(tmp_path: Path) -> None:
    folder = journal.journal_dir(tmp_path)
    folder.mkdir(parents=True)
    (folder / f"{dead_pid()}-r1.json").write_text(json.dumps({"id": "r1"}))
    [(claimed, entry)] = list(journal.orphans(tmp_path))
    assert entry == {"id": "r1"}
    assert claimed.name == f"{os.getpid()}-r1.json" and claimed.exists()
    assert list(journal.orphans(tmp_path)) == []  # now this live process's


def test_an_unreadable_orphan_is_set_aside(tmp_path: Path) -> None:
    folder = journal.journal_dir(tmp_path)
    folder.mkdir(parents=True)
    pid = dead_pid()
    (folder / f"{pid}-bad.json").write_text("{not json")
    assert list(journal.orphans(tmp_path)) == []
    assert [p.name for p in folder.iterdir()] == [f"{pid}-bad.json.broken"]


def test_ledger_has_finds_an_id_across_a_chunk_boundary(tmp_path: Path) -> None:
    ledger = tmp_path / "agent_trace.jsonl"
    record_id = "0123456789abcdef"
    pad = (1 << 20) - 5
    ledger.write_bytes(b"x" * pad + record_id.encode() + b"\n")
    assert journal.ledger_has(ledger, record_id)
    assert not journal.ledger_has(ledger, "fedcba9876543210")
    assert not journal.ledger_has(tmp_path / "missing.jsonl", record_id)
