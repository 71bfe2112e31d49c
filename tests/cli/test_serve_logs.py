"""``intent-ls serve`` writes each stderr log record with its level first, so a client can
show it once at that level (the VS Code extension maps the prefix; see editors/vscode)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

LEVEL = re.compile(r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+: ")


def test_stderr_records_start_with_their_level(tmp_path: Path) -> None:
    body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {}})
    frame = f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
    proc = subprocess.run(
        [sys.executable, "-m", "intent_ls", "serve"],
        input=frame,
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 0
    lines = proc.stderr.decode().splitlines()
    assert lines, "a notification with bad params is logged"
    assert all(LEVEL.match(line) for line in lines), lines
    assert len(lines) == 1, "logged once, in one line"
    assert lines[0].startswith("WARNING ") and "textDocument/didOpen" in lines[0], lines
