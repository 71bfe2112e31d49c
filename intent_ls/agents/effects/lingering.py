"""Changes made between an agent session's calls, while a process one of its commands
started was still alive.

A command may leave a process running (a dev server, a watcher, ``setsid … &``). What
it changes after its call's after-tool event would otherwise be taken by the next call's
snapshot as where that call starts: adopted, never judged. So each after-tool event asks
the sandbox whether any process of the session is still alive
(:mod:`intent_ls.agents.sandbox.liveness`); when one is, it keeps the workspace as git
sees it, verified (:func:`keep`). The next verified call's after-tool event compares that
with the snapshot its before-tool event took (:func:`changes`), and judges each
difference as the session's change (:func:`.attribute.judge_between`): in scope,
recorded; out of scope or destructive, **held** — neither put back nor taken. Between
two calls a human may have made the same change in a terminal, and putting it back
would lose their work: intent-ls cannot tell the two apart, so it keeps the file as it
is, keeps its former bytes, logs it ``unrestorable`` (``intent-ls check`` fails until a
human has looked) and tells the agent. Files an editor saved (recorded in the ledger
by the language server's session) and another agent session recorded are theirs, and
left alone. Protected paths stay read-only to every process of a session, and those
that appear between calls are :mod:`.between`'s.

Where no sandbox runs, nothing tells whether a process is alive: changes made between
calls are taken as they are, and ``doctor`` says that only verification holds there.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from intent_ls.agents.effects import protected_set, snapshot
from intent_ls.agents.effects.compare import Change, between, policy_of
from intent_ls.agents.effects.protected_set import LEDGER
from intent_ls.agents.effects.store import Store, snapshot_name
from intent_ls.agents.events import HookEvent
from intent_ls.common.json_lines import objects


def _name(event: HookEvent) -> str:
    return "between-" + snapshot_name(event.agent, event.session_id, "settled")


def keys(root: Path, event: HookEvent) -> frozenset[str]:
    """Whose commands are the session's: the shell prefix and the barrier the hook wrote
    note them by session; the barrier a model writes itself (Qwen Code's) is told no
    session, and notes them by workspace."""
    from intent_ls.agents import registry

    if event.session_id and not registry.get(event.agent).model_runs_wrapped:
        return frozenset({event.session_id})
    return frozenset({event.session_id, os.path.realpath(root)})


def keep(root: Path, event: HookEvent) -> bool:
    """Once a call is judged: when a process of the session is alive, keeps the
    workspace's files as they are now for the next call to compare with; whether one is."""
    from intent_ls.agents.sandbox.liveness import living

    store = Store(root)
    if not living(root, keys(root, event)):
        with contextlib.suppress(OSError):
            os.unlink(store.dir / "calls" / _name(event))
        return False
    found = snapshot.files(store, root)
    if found is None:
        return True
    found["ledger"] = _size(root / LEDGER)
    found["inflight"] = _in_flight(root, event)
    found["owner"] = {"agent": event.agent, "session": event.session_id}
    store.save_snapshot(_name(event), found)
    store.save_cache()
    return True


def changes(root: Path, event: HookEvent, taken: dict[str, Any]) -> tuple[list[Change], set[str]]:
    """What changed between the session's last kept state and this call's snapshot
    (``taken``), and the files other writers recorded in between (the editor's saves,
    another agent session's calls); nothing when no state was kept, or when another
    call of the session was under way as it was kept. Protected paths are
    left out: no process of the session can write them (the ledger grows by others'
    records)."""
    settled = Store(root).take_snapshot(_name(event))
    if not settled or settled.get("inflight"):
        return [], set()
    return _compared(root, event, settled, taken)


class Orphan(NamedTuple):
    """Another session's kept state, with what changed since and whose it is."""

    owner: HookEvent
    changes: list[Change]
    others: set[str]


def orphaned(root: Path, event: HookEvent, taken: dict[str, Any], judged: set[str]) -> list[Orphan]:
    """The states other sessions kept whose every process has ended, with no call of
    theirs under way, taken from them to be judged as theirs now: a process left by a
    session's last call is judged by no later call of that session, and this call's
    snapshot would otherwise take what it changed as where this call starts. Each is
    taken by one call only (renamed away first); one whose process still runs is left
    for later. ``judged``: the paths this session's own :func:`changes` judged, left
    out (a process of this session may have made them)."""
    from intent_ls.agents.sandbox.liveness import living

    calls = Store(root).dir / "calls"
    found = []
    for path in sorted(calls.glob("between-*.json")):
        if path.name == _name(event):  # this session's own: :func:`changes` takes it
            continue
        owner = _owner(path, event)
        if owner is None or living(root, keys(root, owner)) or _in_flight(root, owner):
            continue
        settled = _claimed(path)
        if settled is not None:
            changed, others = _compared(root, owner, settled, taken)
            changed = [change for change in changed if change.path not in judged]
            if changed:
                found.append(Orphan(owner, changed, others))
    return found


def _owner(path: Path, event: HookEvent) -> HookEvent | None:
    """The session a kept state is of, as it names itself; None for one that names
    none, or an agent intent-ls does not know."""
    from intent_ls.agents import registry
    from intent_ls.agents.events import Phase

    try:
        owner = json.loads(path.read_bytes()).get("owner")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(owner, dict):
        return None
    agent, session = owner.get("agent"), owner.get("session")
    if agent not in registry.names() or not isinstance(session, str) or not session:
        return None
    return HookEvent(agent, Phase.AFTER_TOOL, session, event.cwd)


def _claimed(path: Path) -> dict[str, Any] | None:
    """The kept state, once this call has it alone: another session's call judging the
    same one at once finds it gone."""
    claim = path.with_name(f".{path.name}.{os.getpid()}.taken")
    try:
        os.rename(path, claim)
    except OSError:
        return None
    try:
        data = json.loads(claim.read_bytes())
    except (OSError, ValueError):
        data = None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(claim)
    return data if isinstance(data, dict) else None


def _compared(
    root: Path, event: HookEvent, settled: dict[str, Any], taken: dict[str, Any]
) -> tuple[list[Change], set[str]]:
    store = Store(root)
    now = taken.get("git")
    if not isinstance(now, dict):
        return [], set()
    policy = policy_of(taken)
    prefix = str(root) + os.sep
    found = [
        change
        for change in between(store, settled, now)
        if change.path.startswith(prefix)
        and not protected_set.is_protected_rel(change.path[len(prefix) :], policy)
    ]
    if not found:
        return [], set()
    return found, _recorded_by_others(root, event, settled.get("ledger"), taken)


#: A call of the session still waiting for its after-tool event this long after its
#: before-tool event is taken to have none coming (a human refused it at the agent's
#: prompt after the hook let it through).
IN_FLIGHT_SECONDS = 15 * 60


def _in_flight(root: Path, event: HookEvent) -> bool:
    """Whether another call of the session is under way: its after-tool event judges
    every change since its own snapshot, these included, so they are not judged twice."""
    import time

    from intent_ls.agents import sessions
    from intent_ls.agents.effects.verify import VERIFYING

    waiting = sessions.read_state(root, event.agent, event.session_id).get(VERIFYING)
    if not isinstance(waiting, dict):
        return False
    cutoff = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() - IN_FLIGHT_SECONDS))
    return any(isinstance(when, str) and when >= cutoff for when in waiting.values())


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _recorded_by_others(
    root: Path, event: HookEvent, start: object, taken: dict[str, Any]
) -> set[str]:
    """Paths the ledger's records appended between the two states name, but for this
    session's own."""
    entry = (taken.get("protected") or {}).get(str(root / LEDGER)) or {}
    sig = entry.get("sig")
    if not isinstance(start, int) or not isinstance(sig, list) or sig[0] <= start:
        return set()
    try:
        with open(root / LEDGER, "rb") as fh:
            fh.seek(start)
            appended = fh.read(sig[0] - start)
    except OSError:
        return set()
    paths: set[str] = set()
    for record in objects(appended):
        meta = (record.get("metadata") or {}).get("intent_ls") or {}
        if isinstance(meta, dict) and meta.get("session_id") != event.session_id:
            files = record.get("files") or ()
            paths.update(str(f.get("path")) for f in files if isinstance(f, dict))
    return paths
