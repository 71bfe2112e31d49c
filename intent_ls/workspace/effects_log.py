"""``.orchestration/.local/effects.jsonl``: what agents' tool calls did that was put back.

One JSON object per line: ``time``, ``agent``, ``session``, ``tool``, ``path``, ``code``
(``protected-path``, ``out-of-scope``, ``no-active-intent``, ``destructive-edit``,
``ledger-append``, ``effects-store`` — the state kept before the call was removed during
it, so nothing could be checked) and ``action`` — ``restored`` (re-created or rewritten as it was),
``removed`` (it did not exist before) or ``unrestorable`` (its former state was not
kept: ``intent-ls check`` fails on it until a human has looked and removed the line).
Removed ledger lines are kept under ``removed`` so a human can re-record them.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from intent_ls.common.json_lines import objects
from intent_ls.common.local_state import local_dir
from intent_ls.common.safe_io import open_sidecar, read_sidecar, write_all

LOG_FILE = "effects.jsonl"
RESTORED = "restored"
REMOVED = "removed"
UNRESTORABLE = "unrestorable"
_MAX_READ = 16 * 1024 * 1024


def log_path(root: Path) -> Path:
    return local_dir(root) / LOG_FILE


def append(root: Path, entries: Iterable[dict[str, Any]]) -> None:
    lines = b"".join(
        json.dumps(e, ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n" for e in entries
    )
    if not lines:
        return
    local_dir(root, create=True)
    fd = open_sidecar(log_path(root), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        write_all(fd, lines)
    finally:
        os.close(fd)


def entry(**fields: Any) -> dict[str, Any]:
    """Stamped in UTC to the microsecond, ``2026-01-31T12:00:00.123456Z``, without the
    datetime module: every agent hook stamps one, and importing it costs ~1 ms."""
    ns = time.time_ns()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 1_000_000_000))
    return {"time": f"{stamp}.{ns // 1000 % 1_000_000:06d}Z", **fields}


def read(root: Path) -> Iterator[dict[str, Any]]:
    try:
        raw = read_sidecar(log_path(root), _MAX_READ)
    except OSError:
        return
    yield from objects(raw)
