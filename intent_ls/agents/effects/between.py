"""Protected paths that appear between an agent session's calls.

The sandbox keeps every existing protected path read-only for everything a command
starts, for as long as it lives. A protected path that does not exist yet, directly in
the workspace or in ``.git/`` (``.mcp.json``, ``.intentignore``, ``.git/commondir``, an
agent's settings folder the workspace has not got), cannot be bind-mounted: a process a
call left running could create it after that call's after-tool check, and the next
call's snapshot would take it as where it starts.

So each after-tool event keeps which of those exist (:func:`settle`, in the session's
state), and the next after-tool event compares them with its call's snapshot, taken
just before the call (:func:`appeared`). One that appeared in
between is neither removed — a human may have made it, in a terminal or an editor, and
intent-ls cannot tell — nor taken silently as the new normal: it is logged
``unrestorable``, so ``intent-ls check`` fails until a human has looked, and the agent is
told.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from intent_ls.agents import sessions
from intent_ls.agents.effects import protected_set
from intent_ls.agents.events import HookEvent

#: Session-state key: the watched protected paths that existed after its last call.
SETTLED = "settled"


def _watched(root: Path) -> list[str]:
    """Protected paths whose folder a sandboxed command may write: the workspace's own
    and its git directories (elsewhere a read-only folder holds them), and the agents'
    settings folders."""
    from intent_ls.agents import registry

    files, trees = protected_set.roots(root)
    folders = {str(root), *(str(g) for g in protected_set.git_dirs(root))}
    found = {p for p in (*files, *trees) if os.path.dirname(p) in folders}
    for profile in registry.profiles():
        folder = os.path.dirname(profile.hooks_file)
        if folder:
            found.add(str(root / folder))
    return sorted(found)


def _existing(root: Path) -> list[str]:
    return [p for p in _watched(root) if os.path.lexists(p)]


def settle(root: Path, event: HookEvent) -> None:
    """Keeps, for the session, which watched protected paths exist now (a verified
    call has just been judged and put back)."""
    now = _existing(root)
    with sessions.updating(root, event.agent, event.session_id) as state:
        state[SETTLED] = now


def appeared(root: Path, event: HookEvent, snapshot: dict[str, Any]) -> list[str]:
    """The watched protected paths that were there when this call started (its
    ``snapshot``) but not after the session's last verified call, workspace-relative;
    none before its first."""
    settled = sessions.read_state(root, event.agent, event.session_id).get(SETTLED)
    if not isinstance(settled, list):
        return []
    taken = snapshot.get("protected") or {}
    before = set(settled)
    prefix = str(root) + os.sep
    return [
        p.removeprefix(prefix)
        for p in _watched(root)
        if p not in before and (p in taken or any(k.startswith(p + os.sep) for k in taken))
    ]


def hold(root: Path, event: HookEvent, rels: list[str]) -> str:
    """Logs each appeared path for the human (``intent-ls check`` fails on it) and
    returns what the agent is told; a log that cannot be written is said instead."""
    from intent_ls.policy.verdicts import PROTECTED_PATH
    from intent_ls.workspace import effects_log as log

    why = (
        "it appeared between this session's tool calls: a process the session left "
        "running made it, or a human did; intent-ls cannot tell, so it neither removed "
        "it nor took it as the new normal"
    )
    tool = event.tool.name if event.tool else ""
    entries = [
        log.entry(
            agent=event.agent,
            session=event.session_id,
            tool=tool,
            path=rel,
            code=PROTECTED_PATH,
            action=log.UNRESTORABLE,
            detail=why,
        )
        for rel in rels
    ]
    try:
        log.append(root, entries)
    except OSError as exc:
        return f"[intent-ls] {', '.join(rels)}: {why}; the log failed ({exc}): tell the human."
    return (
        f"[intent-ls] {', '.join(rels)}: {why}. `intent-ls check` fails until a human has "
        "looked at it. Next step: tell the human; do not change or remove it yourself."
    )
