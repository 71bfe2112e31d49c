"""Per-agent-session state, so agents and editors on one workspace never share a selection.

An agent session (Claude's, Codex's or Gemini's ``session_id``) gets its own file,
``.orchestration/.local/agents/<agent>-<session>.json`` (never committed: the ``.local``
folder ignores itself), holding:

- ``intent_id``: the intent this session selected through ``select_active_intent``;
- ``model``: the model id, where the agent shows it somewhere other than the tool payload;
- ``seen``: per path, the content hash this session last read or wrote — a write over
  anything else on disk is a ``stale-file``;
- ``pending``: per path, the content before an allowed write (the record's old side),
  taken just before the tool runs and consumed when its after-tool event records it.

Hooks of one session may run concurrently (parallel tool calls), so every update is a
read-modify-write under an exclusive ``flock`` on the state file itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from intent_ls.common import own_writes
from intent_ls.common.local_state import local_dir
from intent_ls.common.safe_io import write_all

AGENTS_DIR = "agents"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def file_name(agent: str, session_id: str) -> str:
    """``<agent>-<session>``, safe as a file name whatever the session id holds."""
    name = _UNSAFE.sub("_", session_id)[:80] or "none"
    if name != session_id:
        name += "-" + hashlib.sha256(session_id.encode()).hexdigest()[:12]
    return f"{agent}-{name}"


def state_path(root: Path, agent: str, session_id: str) -> Path:
    return local_dir(root) / AGENTS_DIR / f"{file_name(agent, session_id)}.json"


def read_state(root: Path, agent: str, session_id: str) -> dict[str, Any]:
    try:
        data = json.loads(state_path(root, agent, session_id).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


@contextlib.contextmanager
def updating(root: Path, agent: str, session_id: str) -> Iterator[dict[str, Any]]:
    """Yields the session's state to change in place; written back on success."""
    path = state_path(root, agent, session_id)
    local_dir(root, create=True)
    path.parent.mkdir(exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        raw = b""
        while chunk := os.read(fd, 1 << 20):
            raw += chunk
        try:
            state = json.loads(raw) if raw else {}
        except ValueError:
            state = {}
        if not isinstance(state, dict):
            state = {}
        yield state
        body = json.dumps(state, ensure_ascii=False).encode("utf-8")
        if body == raw:
            return
        own_writes.note(path, body)  # not a change of a call under way (own_writes.py)
        # Written over the old bytes, then cut to length: truncating to zero first makes
        # ext4 flush the file on close (its guard for truncate-and-rewrite), ~4 ms a call.
        os.lseek(fd, 0, os.SEEK_SET)
        write_all(fd, body)
        os.ftruncate(fd, len(body))
    finally:
        os.close(fd)
