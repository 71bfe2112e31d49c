"""Which workspace governs an agent session: the one found at its first event, for the
rest of the session.

The hook finds a workspace by walking up from the agent's project directory (or the
event's ``cwd``) to the nearest ``.orchestration/``. An agent can create one deeper, in
its own scope — a decoy spec that gives it any scope it likes — and ``cd`` into it; the
walk would then stop there. So the first event's root is kept, outside the workspace
(under ``$XDG_STATE_HOME/intent-ls/sessions/``, where the agent's commands do not write),
and every later event of the session is governed by it while it is still a workspace.
"""

from __future__ import annotations

import os
from pathlib import Path

from intent_ls.agents.sessions import file_name


def _pins() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "intent-ls" / "sessions"


def fixed(agent: str, session_id: str, found: Path) -> Path:
    """The session's root: the one pinned at its first event (``found`` then), as long as
    it still has its ``.orchestration/`` and ``found`` lies inside it (a decoy). A
    workspace found elsewhere (the session moved to another repository) is that
    repository's, which its own spec governs."""
    if not session_id:
        return found
    root = pinned(agent, session_id)
    if root is not None and found.is_relative_to(root):
        return root
    if (found / ".orchestration").is_dir():
        _pin(_pins() / f"{file_name(agent, session_id)}.root", found)
    return found


def pinned(agent: str, session_id: str) -> Path | None:
    """The root pinned for the session, while it is still a workspace; else None."""
    if not session_id:
        return None
    try:
        found = Path(os.fsdecode((_pins() / f"{file_name(agent, session_id)}.root").read_bytes()))
    except OSError:
        return None
    return found if (found / ".orchestration").is_dir() else None


def _pin(pin: Path, root: Path) -> None:
    """Written once, atomically: a concurrent first event of the same session loses."""
    try:
        pin.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = pin.with_name(f".{pin.name}.{os.getpid()}")
        tmp.write_bytes(os.fsencode(str(root)))
        os.replace(tmp, pin)
    except OSError:
        return
