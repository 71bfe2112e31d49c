"""The two ends of a verified tool call, called by the gate.

:func:`before_call` runs as the last step of an allowed before-tool event and keeps the
snapshot for the call. :func:`restore_protected` runs first thing in the after-tool
event, before the spec or any cache is read, so what governs the judgement is what was
there before the call. :func:`judge_files` then attributes the remaining changes
(:mod:`.attribute`). Both ends find the snapshot by agent, session and the agent's
tool-call id.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from intent_ls.agents.effects import protected_set, snapshot
from intent_ls.agents.effects.git import GitStatus
from intent_ls.agents.effects.store import MAX_COPY, Store, snapshot_name
from intent_ls.agents.events import HookEvent, ToolKind
from intent_ls.common import own_writes
from intent_ls.policy.verdicts import PROTECTED_PATH
from intent_ls.workspace import effects_log as log

if TYPE_CHECKING:  # the after-tool end's modules, not loaded by the before-tool end
    from intent_ls.agents.effects.compare import Effect
    from intent_ls.agents.effects.git_objects import Forged
    from intent_ls.agents.effects.ledger_copy import Settled

LEDGER_APPEND = "ledger-append"
EFFECTS_STORE = "effects-store"


class Restored(NamedTuple):
    """The after-tool event's view of the call once protected paths are as they were."""

    snapshot: dict[str, Any]
    #: One line per protected path put back (or not), for the agent.
    told: tuple[str, ...] = ()
    #: Paths other writers (an editor, another agent session) recorded during the call.
    others: frozenset[str] = frozenset()
    #: What git did with the ledger's records (parked in a stash, back from one).
    noted: tuple[str, ...] = ()
    #: Files a ``git stash`` of the call took back, their records parked with them.
    stashed: frozenset[str] = frozenset()

    @property
    def declared(self) -> list[str] | None:
        """The files the tool's input said it writes, as the before-tool event found them
        (the after-tool event need not parse the command again); None when not kept."""
        found = self.snapshot.get("declared")
        if isinstance(found, list) and all(isinstance(rel, str) for rel in found):
            return found
        return None


def _name(event: HookEvent) -> str:
    return snapshot_name(event.agent, event.session_id, event.tool_id)


#: Session-state key: the snapshots this session's calls are waiting on. A snapshot that
#: is gone at the after-tool event while still listed here was taken away during the call.
VERIFYING = "verifying"


def before_call(
    root: Path,
    event: HookEvent,
    status: GitStatus | None = None,
    declared: Sequence[str] = (),
    agent_protected: Sequence[str] = (),
) -> None:
    """Keeps the workspace's state for the call. ``status`` is its ``git status``, when
    the caller started it early (:class:`.git.GitStatus`); ``declared``, the files
    the tool's input says it writes (:attr:`Restored.declared`); ``agent_protected``, the
    spec's ``policy.agentProtectedPaths``, protected from here to the after-tool event
    whatever the call does to the spec."""
    from intent_ls.agents import sessions

    name = _name(event)
    with sessions.updating(root, event.agent, event.session_id) as state:
        waiting = state.setdefault(VERIFYING, {})
        if isinstance(waiting, dict):
            waiting[name] = log.entry()["time"]
    store = Store(root)
    policy = protected_set.PolicyPaths(agent_protected)
    taken = snapshot.take(store, root, policy, status)
    taken["declared"] = list(declared)
    if event.tool is not None and event.tool.kind in GIT_WRITERS:
        from intent_ls.agents.effects import git_objects

        taken["refs"] = git_objects.state(root)
    store.save_snapshot(name, taken)


def _done(root: Path, event: HookEvent) -> bool:
    """Forgets the call's snapshot; whether the session was waiting on it."""
    from intent_ls.agents import sessions

    with sessions.updating(root, event.agent, event.session_id) as state:
        waiting = state.get(VERIFYING)
        return isinstance(waiting, dict) and waiting.pop(_name(event), None) is not None


def restore_protected(root: Path, event: HookEvent) -> Restored | None:
    """Puts every protected path back; None when no snapshot was taken for the call."""
    store = Store(root)
    taken = store.take_snapshot(_name(event))
    if taken is None or taken.get("root") != str(root):
        if not (root / protected_set.SIDECAR).is_dir() or not _done(root, event):
            return None
        where = str(store.dir)
        gone = "the state kept before the call was removed during it"
        _log(root, [_entry(event, where, EFFECTS_STORE, log.UNRESTORABLE, detail=gone)])
        told = (
            f"{where}: {gone}, so nothing the call changed could be checked or put back; "
            "`intent-ls check` fails until a human has looked"
        )
        return Restored({}, (told,))
    told: list[str] = []
    entries: list[dict[str, Any]] = []
    others: set[str] = set()
    for effect in _protected_effects(store, root, taken):
        if effect.rel == LEDGER_REL:
            kept = _ledger(store, root, effect, event, taken)
            if kept is not None:
                others |= kept
                continue
        elif _written_by_another(store, effect):
            continue
        _put_back_one(store, root, event, effect, told, entries)
    _git_objects(root, event, taken, told, entries)
    settled = _ledger_copies(root, event, taken)
    told += settled.told
    problem = _log(root, entries)
    if problem:
        told.append(problem)
    _done(root, event)
    store.collect(set())
    return Restored(taken, tuple(told), frozenset(others), settled.noted, settled.stashed)


def _put_back_one(
    store: Store,
    root: Path,
    event: HookEvent,
    effect: Effect,
    told: list[str],
    entries: list[dict[str, Any]],
) -> None:
    """Puts one protected path back, says so and logs it; a cache silently."""
    from intent_ls.agents.effects.restore import Unrestorable, put_back

    if _derived(effect):
        with contextlib.suppress(OSError):
            put_back(effect, store, root)  # rebuilt from what it derives from
        return
    shown = effect.rel or effect.path
    try:
        put_back(effect, store, root)
        action = log.RESTORED if effect.before.exists else log.REMOVED
    except (Unrestorable, OSError) as exc:
        action = log.UNRESTORABLE
        told.append(
            f"{shown}: could not be put back ({exc}); the human is told by `intent-ls check`"
        )
    else:
        verb = "re-created" if action == log.RESTORED and not _exists(effect) else action
        told.append(f"{shown}: {verb}")
    entries.append(_entry(event, shown, PROTECTED_PATH, action))


def _ledger_copies(root: Path, event: HookEvent, taken: dict[str, Any]) -> Settled:
    """What the call's commands did to their copies of the ledger (:mod:`.ledger_copy`)."""
    from intent_ls.agents.effects import ledger_copy

    if event.tool is None or event.tool.kind not in GIT_WRITERS:
        return ledger_copy.Settled()
    refs = taken.get("refs")
    stash = refs.get("stash") if isinstance(refs, dict) else None
    return ledger_copy.settle(root, stash if isinstance(stash, str) else None)


LEDGER_REL = ".orchestration/agent_trace.jsonl"
EFFECTS_LOG_REL = ".orchestration/.local/" + log.LOG_FILE
#: Tools that can run git (a shell, another MCP server's tool): around them the refs and
#: the index are noted, so that a protected path committed as it never was on disk is
#: put back (:mod:`.git_objects`).
GIT_WRITERS = frozenset({ToolKind.SHELL, ToolKind.OTHER})


OTHER_CHANGES_STAY = " (the commit's other changes are still in the index and the files)"


def _brought_wording(files: list[str]) -> str:
    count = f"{len(files)} file{'' if len(files) == 1 else 's'}"
    what = f", with the {count} git brought with it put back as they were" if files else ""
    return (
        f"{what} (a pull, merge or rebase: others' commits carry ledger records and spec "
        "changes that intent-ls does not take from an agent's command; ask the human to "
        "run it in a terminal)"
    )


def _git_objects(
    root: Path,
    event: HookEvent,
    taken: dict[str, Any],
    told: list[str],
    entries: list[dict[str, Any]],
) -> None:
    if not isinstance(taken.get("refs"), dict):
        return
    from intent_ls.agents.effects import git_objects
    from intent_ls.agents.effects.compare import policy_of

    policy = policy_of(taken)
    for found in git_objects.forged(root, taken["refs"], policy):
        files = _brought_in(root, found, policy, taken)
        done = git_objects.put_back(root, found)
        where = f"back at {found.old[:12]}" if found.old else "removed"
        if found.old and found.old.startswith("ref:"):
            where = f"back on {found.old[4:].strip()}"
        told.append(
            f"{found.path}: commit {found.commit[:12]} holds it as it is not on disk; "
            + (f"{found.ref} is {where}" if done else f"{found.ref} could not be put back")
            + (_brought_wording(files) if files is not None else OTHER_CHANGES_STAY)
        )
        action = (log.RESTORED if found.old else log.REMOVED) if done else log.UNRESTORABLE
        entries.append(_entry(event, found.path, PROTECTED_PATH, action, ref=found.ref,
                              commit=found.commit))  # fmt: skip
    _stopped_pull(root, taken, policy, told)
    for path in git_objects.staged(root, taken["refs"], policy):
        told.append(f"{path}: staged as it is not on disk; its index entry is HEAD's again")
        entries.append(_entry(event, path, PROTECTED_PATH, log.RESTORED, staged=True))
    if git_objects.checked_out(root, taken["refs"]):
        told.append(f"{LEDGER_REL}: written as the commit checked out holds it (read-only to git)")


def _stopped_pull(
    root: Path, taken: dict[str, Any], policy: protected_set.PolicyPaths, told: list[str]
) -> None:
    """The files a pull that stopped part-way had written, put back (:mod:`.brought_in`)."""
    from intent_ls.agents.effects import brought_in

    stopped = brought_in.stopped_pull(root, taken["refs"])
    files = (
        brought_in.put_back_files(root, stopped, policy, snapshot.dirty_before(taken))
        if stopped
        else []
    )
    if files:
        shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
        told.append(
            f"{shown}: written by a pull that stopped part-way (the commits it brings change "
            "files no agent's command may write, such as the spec), put back as they were; "
            "ask the human to run it in a terminal"
        )


def _brought_in(
    root: Path, found: Forged, policy: protected_set.PolicyPaths, taken: dict[str, Any]
) -> list[str] | None:
    """The files a pull, merge or rebase brought with the commit, put back with it
    (:mod:`.brought_in`); None when git did not move the branch itself."""
    from intent_ls.agents.effects import brought_in

    if not brought_in.brought_in(root, found):
        return None
    return brought_in.put_back_files(root, found, policy, snapshot.dirty_before(taken))


def _protected_effects(store: Store, root: Path, taken: dict[str, Any]) -> Iterator[Effect]:
    """Every protected path the call changed. Those the snapshot holds come first; files
    the call created where the repository's policy protects are looked for only once
    those are put back (the caller puts each back before asking for the next), so the
    policy's globs are matched with the workspace's own glob translations, never with a
    cache the call could have forged."""
    from intent_ls.agents.effects.compare import policy_created, policy_of, protected_changes

    yield from protected_changes(store, root, taken)
    policy = policy_of(taken)
    if policy.globs:
        from intent_ls.scope import glob_cache

        glob_cache.load(root)
        yield from policy_created(root, taken, policy)


def _written_by_another(store: Store, effect: Effect) -> bool:
    """Whether the change is another writer's of intent-ls's own, made while the call
    ran: a file as a note vouches for it (:mod:`intent_ls.common.own_writes`), or the
    effects log grown by lines (another call's hook logging; a line added by the call
    itself can only make ``check`` fail, never hide what is logged)."""
    try:
        with open(effect.path, "rb") as fh:
            now = fh.read(MAX_COPY + 1)
    except OSError:
        return False
    if len(now) > MAX_COPY:
        return False
    if effect.rel == EFFECTS_LOG_REL:
        old = store.get(effect.before.blob) if effect.before.blob else b""
        return old is not None and now.startswith(old) and now.endswith(b"\n")
    return own_writes.vouched(effect.path, now)


def _derived(effect: Effect) -> bool:
    """A cache of the sidecar (derived from the spec or the ledger): deleted when the
    call changed it, without a word — another writer may have rebuilt it meanwhile."""
    return os.path.basename(effect.path).startswith(protected_set.CACHE_NAMES)


def _exists(effect: Effect) -> bool:
    return os.path.lexists(effect.path)


def _ledger(
    store: Store, root: Path, effect: Effect, event: HookEvent, taken: dict[str, Any]
) -> set[str] | None:
    """When the ledger only grew by records other writers made (an editor's saves, another
    agent session's hook), keeps them and returns the paths they record; None when the
    call's change must be put back (anything else: an approval, a record claiming this
    session, an edit of existing lines)."""
    appended = _appended(store, effect)
    if not appended:
        return None
    known = _known_sessions(root, taken)
    paths: set[str] = set()
    vouched = own_writes.noted(effect.path)
    for line in appended.splitlines():
        record = _json(line) or {}
        if not _another_writers(record, event, known, _digest(line) in vouched):
            _keep_removed(root, event, appended)
            return None
        paths.update(str(f.get("path")) for f in record.get("files") or () if isinstance(f, dict))
    return paths


def _appended(store: Store, effect: Effect) -> bytes | None:
    """The bytes the call's time added at the end of the ledger; None when it changed
    anything else."""
    from intent_ls.agents.effects.compare import ledger_appended

    before = effect.before
    if before.size is not None:
        return ledger_appended(effect.path, before)
    old = store.get(before.blob) if before.blob else b""
    try:
        now = Path(effect.path).read_bytes()
    except OSError:
        return None
    return now[len(old) :] if old is not None and now.startswith(old) else None


def _another_writers(
    record: dict[str, Any], event: HookEvent, known: set[str], vouched: bool
) -> bool:
    """Whether an appended record is another writer's save, approving nothing: a
    mutation record a note vouches for (:mod:`intent_ls.common.own_writes`: a parallel
    call's hook, the language server), or one of a session that existed before the call
    and is not this one."""
    meta = (record.get("metadata") or {}).get("intent_ls")
    if not isinstance(meta, dict) or meta.get("kind") == "approval" or meta.get("approvals"):
        return False
    session = meta.get("session_id")
    return vouched or (session != event.session_id and session in known)


def _digest(line: bytes) -> str:
    import hashlib

    return hashlib.sha256(line).hexdigest()


def _keep_removed(root: Path, event: HookEvent, appended: bytes) -> None:
    text = appended.decode("utf-8", "replace")
    _log(root, [_entry(event, LEDGER_REL, LEDGER_APPEND, log.REMOVED, removed=text)])


def _known_sessions(root: Path, taken: dict[str, Any]) -> set[str]:
    """Sessions that existed before the call: the editor's selection and agent sessions
    with their own state file (created by hooks, never during a verified call)."""
    from intent_ls.common.local_state import SESSION_FILE, local_dir

    found: set[str] = set()
    protected = taken.get("protected") or {}
    editor = protected.get(str(local_dir(root) / SESSION_FILE))
    if isinstance(editor, dict) and editor.get("blob"):
        data = _json(Store(root).get(editor["blob"]) or b"")
        if data and isinstance(data.get("session_id"), str):
            found.add(data["session_id"])
    agents_dir = str(local_dir(root) / "agents") + os.sep
    for path in protected:
        if path.startswith(agents_dir) and path.endswith(".json"):
            found |= _sessions_named(root, path, path[len(agents_dir) : -len(".json")])
    return found


def _sessions_named(root: Path, path: str, name: str) -> set[str]:
    """The session whose state file ``<agent>-<session>.json`` is at ``path``, for the
    agent whose name starts it (agent names may hold a ``-`` themselves)."""
    from intent_ls.agents import registry
    from intent_ls.agents.sessions import state_path

    found = set()
    for agent in registry.names():
        session = name.removeprefix(agent + "-")
        if session != name and str(state_path(root, agent, session)) == path:
            found.add(session)
    return found


def _json(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _entry(event: HookEvent, path: str, code: str, action: str, **more: Any) -> dict[str, Any]:
    tool = event.tool.name if event.tool else ""
    return log.entry(
        agent=event.agent,
        session=event.session_id,
        tool=tool,
        path=path,
        code=code,
        action=action,
        **more,
    )


def _log(root: Path, entries: list[dict[str, Any]]) -> str | None:
    """Appends to the effects log; a failure is returned for the agent to relay."""
    try:
        log.append(root, entries)
    except OSError as exc:
        return f"the effects log could not be written ({exc}): tell the human"
    return None
