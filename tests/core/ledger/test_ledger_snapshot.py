"""``trace verify`` while another process appends: it reads a consistent snapshot (issue 9).

Records are padded to 256 KiB so a single append spans many pages and a reader without
the snapshot would often catch a line half-written (a torn line on a healthy ledger).
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from intent_ls.common.hashing import bytes_hash
from intent_ls.ledger.store import Ledger, canonical_bytes, ledger_path, seal
from intent_ls.ledger.verify import VerifyResult, verify_ledger
from tests.core.ledger.ledger_helpers import created

APPENDER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from intent_ls.ledger.store import Ledger
    record = json.loads(sys.stdin.read())
    ledger = Ledger(Path(sys.argv[1]), fsync=False)
    print("ready", flush=True)
    for n in range(int(sys.argv[2])):
        record["id"] = f"00000000-0000-4000-8000-{n:012d}"
        ledger.append(record)
    """
)


def test_verify_never_sees_a_torn_line_while_another_process_appends(workspace: Path) -> None:
    record = created(workspace)
    record["metadata"]["padding"] = "x" * (256 * 1024)
    path = ledger_path(workspace)
    Ledger(path, fsync=False).append(record)
    assert verify_ledger(path).ok
    proc = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(path), "300"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(record))
    proc.stdin.close()
    assert proc.stdout.readline().strip() == "ready"
    runs = 0
    problems = []
    while proc.poll() is None or runs == 0:
        result = verify_ledger(path)
        runs += 1
        if result.problem is not None:
            problems.append(result.problem)
    assert proc.wait() == 0
    assert problems == []
    assert runs >= 5
    assert verify_ledger(path).records == 301


def test_verify_waits_for_a_writer_in_the_middle_of_a_line(workspace: Path) -> None:
    """Deterministic form of the race: a writer holds the append lock and has written
    half of a valid line. verify must report neither a torn line nor a short ledger."""
    record = created(workspace)
    path = ledger_path(workspace)
    ledger = Ledger(path, fsync=False)
    first = ledger.append(record)
    record["id"] = "00000000-0000-4000-8000-000000000002"
    line = seal(record, bytes_hash(canonical_bytes(first))) + b"\n"
    lock = os.open(ledger.lock_path, os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)
    with open(path, "ab") as f:
        f.write(line[: len(line) // 2])
    results: list[VerifyResult] = []
    reader = threading.Thread(target=lambda: results.append(verify_ledger(path)))
    reader.start()
    reader.join(0.5)  # long enough for an unlocked reader to have read the half line
    with open(path, "ab") as f:
        f.write(line[len(line) // 2 :])
    fcntl.flock(lock, fcntl.LOCK_UN)
    os.close(lock)
    reader.join(10)
    [result] = results
    assert result.problem is None, result.problem
    assert result.records == 2
