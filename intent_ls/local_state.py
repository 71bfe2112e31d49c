"""Per-user state that must survive a restart but never be committed.

It lives in ``.orchestration/.local/`` which carries its own ``.gitignore`` (``*``), so
the user's repository needs no change and git never sees the selection.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

LOCAL_DIR = ".orchestration/.local"
SESSION_FILE = "session.json"


def ensure_private_dir(path: Path) -> Path:
    """Creates ``path`` with a ``.gitignore`` of ``*`` so git never sees its contents."""
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# intent-ls local state: never committed\n*\n", encoding="utf-8")
    return path


def local_dir(root: Path, create: bool = False) -> Path:
    path = root / LOCAL_DIR
    return ensure_private_dir(path) if create else path


def load_selection(root: Path) -> dict[str, Any]:
    try:
        data = json.loads((local_dir(root) / SESSION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_selection(root: Path, intent_id: str | None, session_id: str) -> None:
    if not (root / ".orchestration").is_dir():
        return
    path = local_dir(root, create=True) / SESSION_FILE
    tmp = path.with_name(f".{SESSION_FILE}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"intent_id": intent_id, "session_id": session_id}), encoding="utf-8")
    os.replace(tmp, path)
