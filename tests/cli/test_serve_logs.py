"""``intent-ls serve`` writes each stderr log record with its level first, so a client can
show it once at that level (the VS Code extension maps the prefix; see editors/vscode)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

LEVEL = re.compile(r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+: ")


def test_stderr_records_start_with_their_level(tmp_path: Path) -> None:
    garbage = b"Content-Length: 5\r\n\r\n{bad}"
    proc = subprocess.run(
        [sys.executable, "-m", "intent_ls", "serve"],
        input=garbage,
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 0
    lines = proc.stderr.decode().splitlines()
    records = [line for line in lines if LEVEL.match(line)]
    assert records, proc.stderr.decode()
    assert all(r.startswith("ERROR ") for r in records)
    assert lines[0].startswith("ERROR "), "a record's continuation lines follow its level line"
