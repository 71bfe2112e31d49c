"""Whether this session's commands run in the sandbox: tried once per session (~7 ms) by
the hook, at its start or its first command, and kept in its state file, which no
sandboxed command can write (``.orchestration/`` is read-only there). The shell prefix
only reads it (a write during the call would be a change to a protected file), and
tries for itself when the session has no answer yet."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents import sessions
from intent_ls.agents.sandbox import bwrap

#: Session-state key: whether bubblewrap could build a sandbox in this session.
KEY = "sandbox"


def works_in(root: Path, agent: str, session_id: str) -> bool:
    known = sessions.read_state(root, agent, session_id).get(KEY)
    if isinstance(known, bool):
        return known
    found, _ = bwrap.works()
    with sessions.updating(root, agent, session_id) as state:
        state[KEY] = found
    return found


def for_session(root: Path, agent: str, session_id: str) -> str | None:
    """bubblewrap's path when this session's commands run in the sandbox, else None."""
    known = sessions.read_state(root, agent, session_id).get(KEY)
    found = known if isinstance(known, bool) else bwrap.works()[0]
    return bwrap.binary() if found else None
