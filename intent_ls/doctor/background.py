"""The ``agents background`` check: processes agents' sandboxed commands left running
here (a dev server, a watcher, a ``setsid`` child), by the session whose command
started them (:func:`intent_ls.agents.sandbox.liveness.left_running`).

Said because what such a process changes is judged only at an agent's next tool call:
at its own session's, or, once it has ended, at any session's. With no later call,
nothing judges it, and meanwhile another session's calls start from what it wrote. A
human who reads this can end them; nothing is said when none runs."""

from __future__ import annotations

import os
from pathlib import Path

from intent_ls.doctor.report import Check, note

AREA = "agents"
NAME = "background"
#: How much of a process's command line is shown.
_SHOWN = 60


def check_background(root: Path) -> list[Check]:
    from intent_ls.agents.sandbox import liveness

    running = liveness.left_running(root)
    if not running:
        return []
    real = os.path.realpath(root)
    groups = [
        f"{_whose(key, real)}: {', '.join(_shown(p) for p in pids)}"
        for key, pids in running.items()
    ]
    count = sum(len(pids) for pids in running.values())
    detail = (
        f"{count} process{'es' if count != 1 else ''} that agents' commands left running "
        f"still run{'s' if count == 1 else ''} here, confined — {'; '.join(groups)}. What "
        "they change is judged at their session's next tool call or, once they have "
        "ended, at any agent session's next call; until then, other sessions' calls "
        "start from what they wrote."
    )
    pids = " ".join(str(pid) for group in running.values() for pid in group)
    next_step = (
        f"if they are not needed: `kill {pids}` (or the agent's "
        "stop_background_processes tool), then let an agent make a call, or run "
        "`intent-ls check`, to see what they changed."
    )
    data = {"processes": {key: list(group) for key, group in running.items()}}
    return [note(AREA, NAME, detail, next_step, data=data)]


def _whose(key: str, root: str) -> str:
    """A session id, or the workspace itself for agents whose commands are not told
    the session (Qwen Code's)."""
    return "the workspace's commands" if key in ("", root) else f"session {key}"


def _shown(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            words = file.read().split(b"\0")
    except OSError:
        return str(pid)
    line = " ".join(w.decode(errors="replace") for w in words if w)
    if len(line) > _SHOWN:
        line = line[: _SHOWN - 1] + "…"
    return f"{pid} ({line})" if line else str(pid)
