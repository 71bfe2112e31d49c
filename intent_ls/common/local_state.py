"""Per-user state that must survive a restart but never be committed.

It lives in ``.orchestration/.local/`` which carries its own ``.gitignore`` (``*``), so
the user's repository needs no change and git never sees the selection. Every access
goes through :mod:`intent_ls.common.safe_io`: a cloned repository may have planted symlinks here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from intent_ls.common import own_writes
from intent_ls.common.safe_io import ensure_sidecar_dir, open_sidecar, read_sidecar, write_atomic

LOCAL_DIR = ".orchestration/.local"
SESSION_FILE = "session.json"
_MAX_SESSION_BYTES = 64 * 1024
_IGNORE_TEXT = b"# intent-ls local state: never committed\n*\n"


def ensure_private_dir(path: Path) -> Path:
    """Creates ``path`` with a ``.gitignore`` of ``*`` so git never sees its contents."""
    ensure_sidecar_dir(path)
    try:
        fd = open_sidecar(path / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return path
    try:
        os.write(fd, _IGNORE_TEXT)
    finally:
        os.close(fd)
    return path


def local_dir(root: Path, create: bool = False) -> Path:
    path = root / LOCAL_DIR
    return ensure_private_dir(path) if create else path


def load_selection(root: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_sidecar(local_dir(root) / SESSION_FILE, _MAX_SESSION_BYTES))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_selection(root: Path, intent_id: str | None, session_id: str) -> None:
    if not (root / ".orchestration").is_dir():
        return
    path = local_dir(root, create=True) / SESSION_FILE
    data = json.dumps({"intent_id": intent_id, "session_id": session_id}).encode("utf-8")
    own_writes.note(path, data)
    write_atomic(path, data)
