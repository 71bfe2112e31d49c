from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from intent_ls.common.hashing import bytes_hash
from intent_ls.ledger.store import GENESIS, Ledger
from intent_ls.ledger.verify import verify_ledger
from tests.core.ledger.ledger_helpers import mutation


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def test_chain_starts_at_genesis_and_links_lines(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "t.jsonl", fsync=False)
    first = ledger.append(mutation(tmp_path, 1))
    second = ledger.append(mutation(tmp_path, 2))
    lines = _lines(ledger.path)
    assert first["metadata"]["intent_ls"]["prev"] == GENESIS
    assert second["metadata"]["intent_ls"]["prev"] == bytes_hash(lines[0])
    assert json.loads(lines[1]) == second
    assert verify_ledger(ledger.path).ok


_WRITER = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from tests.core.ledger.ledger_helpers import mutation
from intent_ls.ledger.store import Ledger
ledger = Ledger(Path({path!r}), fsync=False)
for i in range({n}):
    record = mutation(Path('.'), i, intent="W{w}")
    record["metadata"]["intent_ls"]["session_id"] = "w{w}-%d" % i
    ledger.append(record)
"""


def test_concurrent_appends_from_many_processes(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    tests = str(Path(__file__).resolve().parents[3])
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER.format(tests=tests, path=str(path), n=200, w=w)]
        )
        for w in range(4)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    result = verify_ledger(path)
    assert result.ok, result.problem
    assert result.records == 800
    sessions = {json.loads(line)["metadata"]["intent_ls"]["session_id"] for line in _lines(path)}
    assert sessions == {f"w{w}-{i}" for w in range(4) for i in range(200)}


_CRASHER = """
import os, signal, sys, fcntl
from pathlib import Path
path = Path({path!r})
lock = os.open(str(path.parent / ".local" / (path.name + ".lock")), os.O_RDWR | os.O_CREAT)
fcntl.flock(lock, fcntl.LOCK_EX)
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
os.write(fd, b'{{"files":[],"id":"half-writ')   # the process dies mid-record
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_process_killed_mid_append_is_quarantined_and_chain_continues(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "t.jsonl", fsync=False)
    for i in range(3):
        ledger.append(mutation(tmp_path, i))
    before = ledger.path.read_bytes()
    proc = subprocess.run([sys.executable, "-c", _CRASHER.format(path=str(ledger.path))])
    assert proc.returncode == -signal.SIGKILL
    assert verify_ledger(ledger.path).problem.line == 4  # the torn line is reported
    ledger.append(mutation(tmp_path, 9))
    after = ledger.path.read_bytes()
    assert after.startswith(before)  # nothing else lost
    assert ledger.quarantine_path.read_bytes() == b'{"files":[],"id":"half-writ\n'
    result = verify_ledger(ledger.path)
    assert result.ok and result.records == 4
    assert json.loads(_lines(ledger.path)[3])["metadata"]["intent_ls"]["prev"] == bytes_hash(
        _lines(ledger.path)[2]
    )


def test_unparsable_final_line_is_quarantined(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "t.jsonl", fsync=False)
    ledger.append(mutation(tmp_path, 1))
    with ledger.path.open("ab") as f:
        f.write(b"garbage that is not json\n")
    ledger.append(mutation(tmp_path, 2))
    assert ledger.quarantine_path.read_bytes() == b"garbage that is not json\n"
    assert verify_ledger(ledger.path).records == 2


def _ledger_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(Path(tmp) / "t.jsonl", fsync=False)
        for i in range(3):
            ledger.append(mutation(Path(tmp), i, intent=f"INT-00{i}"))
        return ledger.path.read_bytes()


LEDGER = _ledger_bytes()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=st.integers(0, len(LEDGER) - 1), value=st.integers(0, 255))
def test_one_byte_tamper_anywhere_is_caught(position: int, value: int) -> None:
    if LEDGER[position] == value:
        value = (value + 1) % 256
    tampered = bytearray(LEDGER)
    tampered[position] = value
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_bytes(bytes(tampered))
        result = verify_ledger(path)
    assert not result.ok
    assert result.problem.line <= LEDGER[: position + 1].count(b"\n") + 1


def test_untampered_ledger_verifies() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_bytes(LEDGER)
        assert verify_ledger(path).records == 3


def test_deleting_a_middle_line_breaks_the_chain(tmp_path: Path) -> None:
    lines = LEDGER.splitlines(keepends=True)
    path = tmp_path / "t.jsonl"
    path.write_bytes(lines[0] + lines[2])
    problem = verify_ledger(path).problem
    assert problem is not None and problem.line == 2 and "chain" in problem.reason


def test_fsync_is_called_when_enabled(tmp_path: Path, monkeypatch) -> None:
    calls = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(fd) or real(fd))
    Ledger(tmp_path / "on.jsonl").append(mutation(tmp_path, 1))
    assert calls
    calls.clear()
    Ledger(tmp_path / "off.jsonl", fsync=False).append(mutation(tmp_path, 1))
    assert calls == []
