"""Whether this session's commands run in the sandbox, and the paths its plan starts
from: kept by the hook in the session's state file, which no sandboxed command can
write (``.orchestration/`` is read-only there).

Trying bubblewrap costs ~7 ms, so it is tried once per session, at its start or its
first command. The candidate paths (the protected set, the policy's additions) cost the
spec and every agent's profile to compute: the hook, which has them loaded, refreshes
them before each shell command, so the shell prefix that runs the command reads them
and imports none of that. The prefix only reads the state (a write during the call would
be a change to a protected file); without it, it works them out itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents import sessions
from intent_ls.agents.sandbox import bwrap

#: Session-state key: whether bubblewrap could build a sandbox in this session.
KEY = "sandbox"
#: Session-state key: the plan's candidate paths (:func:`.gather.candidates`).
PATHS = "sandboxPaths"


def works_in(root: Path, agent: str, session_id: str) -> bool:
    known = sessions.read_state(root, agent, session_id).get(KEY)
    if isinstance(known, bool):
        return known
    found, _ = bwrap.works()
    with sessions.updating(root, agent, session_id) as state:
        state[KEY] = found
    return found


def refresh_paths(root: Path, agent: str, session_id: str) -> None:
    """The plan's candidate paths as they are now, for the command about to run."""
    from intent_ls.agents.sandbox.gather import candidates

    found = candidates(root)
    with sessions.updating(root, agent, session_id) as state:
        state[PATHS] = found


def for_session(root: Path, agent: str, session_id: str) -> tuple[str | None, dict[str, Any]]:
    """bubblewrap's path when this session's commands run in the sandbox (else None),
    and the candidate paths the hook kept (empty when it kept none)."""
    state = sessions.read_state(root, agent, session_id)
    known = state.get(KEY)
    found = known if isinstance(known, bool) else bwrap.works()[0]
    paths = state.get(PATHS)
    return (bwrap.binary() if found else None), (paths if isinstance(paths, dict) else {})
