"""Whose change is it, and may it stay? The files a call changed, judged one by one.

Each changed file (:func:`.compare.file_changes`) is judged as the same change made
through the agent's Write tool would have been: outside the selected intent's scope
(or with none selected) it is put back; a destructive change (deleted definitions, an
emptied or deleted file) is put back until a human approves it with the command the
agent is given; anything else is recorded in the ledger as this session's (``ai``, the
model id, the intent), so a formatter, a generator or ``sed -i`` leaves complete records.

Not the agent's, so neither put back nor recorded: ignored paths (``.intentignore``),
files the tool call itself declared (recorded by the gate from the tool's input) and
files another writer recorded in the ledger during the call (an editor's save, another
agent session).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from intent_ls.agents.effects.compare import Change, Effect, file_changes
from intent_ls.agents.effects.git import GitStatus
from intent_ls.agents.effects.restore import Unrestorable, put_back
from intent_ls.agents.effects.store import Store
from intent_ls.agents.effects.verify import Restored, _entry, _log
from intent_ls.agents.events import HookEvent
from intent_ls.common.hashing import text_hash
from intent_ls.policy.rules.rule import Verdict, Words
from intent_ls.workspace import effects_log as log

_MAX_TOLD = 20


class Wording(NamedTuple):
    """What the gate knows and words for the agent, handed in so this module needs no
    import of the gate: the session's selection, its model id, and the next steps."""

    session: Any
    model: str | None
    #: What the gate knows to word a verdict about a path (owners, next steps).
    words: Callable[[str], Words]


def _bytes(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError:
        return b""
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:  # a directory or special file now stands there
        return b""
    finally:
        os.close(fd)


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8-sig", "replace")


def judge_files(
    gov: Any,
    event: HookEvent,
    restored: Restored,
    declared: set[str],
    wording: Wording,
    status: GitStatus | None = None,
) -> list[str]:
    """Judges, puts back or records every changed file; returns lines for the agent.
    ``status``: the ``git status`` after the call, when already started."""
    store = Store(gov.root)
    found = file_changes(store, gov.root, restored.snapshot, status)
    effects = [e for e in found if _the_calls(gov, e, declared, restored, wording)]
    if not effects:
        return []
    told: list[str] = []
    entries: list[dict[str, Any]] = []
    to_record: list[tuple[str, str, str, Any]] = []
    kept: set[bytes] = set()  # the contents of the files the call created and may keep
    changes = [(e, _old_bytes(store, e), _bytes(e.path)) for e in effects]
    for effect, old_bytes, new_bytes in sorted(changes, key=lambda c: c[2] is None):
        if effect.before.exists and old_bytes == new_bytes and effect.before.link is None:
            continue
        old, new = _text(old_bytes) or "", _text(new_bytes)
        moved = new_bytes is None and old_bytes in kept
        blocking, decision = _judge(gov, wording.session, effect, old, new, moved)
        if blocking:
            told.append(_told(gov.root, store, effect, event, blocking, wording, entries))
            continue
        to_record.append((effect.rel or "", old, new or "", decision))
        kept.update(_created(effect, new_bytes))
    problem = _log(gov.root, entries)
    if problem:
        told.append(problem)
    told += _record(gov, event, wording, to_record)
    return _clipped(told)


def _clipped(told: list[str]) -> list[str]:
    if len(told) > _MAX_TOLD:
        return [*told[:_MAX_TOLD], f"… and {len(told) - _MAX_TOLD} more (see {log.LOG_FILE})"]
    return told


def _the_calls(
    gov: Any, effect: Effect, declared: set[str], restored: Restored, wording: Wording
) -> bool:
    """Whether the change is the call's to answer for here: governed, not declared by
    the tool itself, not recorded by another writer during the call, not parked in (or
    back from) a stash with its records."""
    rel = effect.rel
    return (
        bool(rel)
        and rel not in declared
        and rel not in restored.others
        and not (gov.scope.is_ignored(rel))
        and not _stashed(gov, wording, effect, restored)
    )


def _stashed(gov: Any, wording: Wording, effect: Effect, restored: Restored) -> bool:
    """A file a ``git stash`` of the call took back (or its ``pop`` brought back) with
    the records of its change: not the call's to answer for again, unless its path is
    one no agent may change."""
    return effect.rel in restored.stashed and not _path_verdicts(gov, wording.session, effect)


def _created(effect: Effect, new_bytes: bytes | None) -> tuple[bytes, ...]:
    return (new_bytes,) if new_bytes is not None and not effect.before.exists else ()


def _old_bytes(store: Store, effect: Effect) -> bytes | None:
    return store.get(effect.before.blob) if effect.before.blob else None


def _judge(
    gov: Any, session: Any, effect: Effect, old: str, new: str | None, moved: bool = False
) -> tuple[list[Verdict], Any]:
    """The verdicts (of one rule) that put the file back, else none and the decision
    its record carries: the path first (whoever owns it), then the change, which is put
    back only when the file can be restored. A file ``moved`` (deleted, its bytes now in
    a file the call created and keeps: ``mv a b`` inside the scope) lost nothing, so its
    deletion is recorded, not put back."""
    from intent_ls import workflow  # the policy's rules: only for a call that changed files

    rel = effect.rel or ""
    path = _path_verdicts(gov, session, effect)
    if path:
        return list(path[:1]), None
    if new is None:
        decision = workflow.judge_file_operation(
            session, gov.scope, rel, None, text=old, root=gov.root
        )
    else:
        decision = workflow.judge_write(session, gov.scope, rel, old, new, root=gov.root)
    blocking = decision.blocking()
    if blocking and effect.before.restorable and not moved:
        return [v for v in blocking if v.code == blocking[0].code], decision
    return [], decision


def _path_verdicts(gov: Any, session: Any, effect: Effect) -> list[Verdict]:
    """What blocks a change of this path whoever makes it (out of scope, ignored)."""
    from intent_ls import workflow

    return list(workflow.judge_path(session, gov.scope, effect.rel or "").blocking())


def _told(
    root: Path,
    store: Store,
    effect: Effect,
    event: HookEvent,
    verdicts: list[Verdict],
    wording: Wording,
    entries: list[dict[str, Any]],
) -> str:
    """Puts the file back for ``verdicts`` (of one rule) and says why, as the rule
    words it."""
    rule = verdicts[0].rule
    done = _put_back(root, store, effect, event, rule.code, entries)
    return f"{done} — {rule.tell_put_back(rule, verdicts, wording.words(effect.rel or ''))}"


def _put_back(
    root: Path,
    store: Store,
    effect: Effect,
    event: HookEvent,
    code: str,
    entries: list[dict[str, Any]],
) -> str:
    rel = effect.rel or effect.path
    try:
        put_back(effect, store, root)
    except (Unrestorable, OSError) as exc:
        entries.append(_entry(event, rel, code, log.UNRESTORABLE, detail=str(exc)))
        return f"{rel}: {code}, and it could not be put back ({exc})"
    action = log.RESTORED if effect.before.exists else log.REMOVED
    entries.append(_entry(event, rel, code, action))
    return f"{rel}: {code}, {action}"


def _record(
    gov: Any,
    event: HookEvent,
    wording: Wording,
    changes: list[tuple[str, str, str, Any]],
) -> list[str]:
    """Records each in-scope change as the session's; once per content (parallel calls of
    one session see each other's changes)."""
    from intent_ls import workflow
    from intent_ls.agents import sessions
    from intent_ls.ledger.store import Ledger, ledger_path
    from intent_ls.policy.approvals import Contributor

    if not changes:
        return []
    problems = []
    ledger = Ledger(ledger_path(gov.root))
    with sessions.updating(gov.root, event.agent, event.session_id) as fresh:
        recorded: dict[str, Any] = fresh.setdefault("recorded", {})
        seen: dict[str, Any] = fresh.setdefault("seen", {})
        for rel, old, new, decision in changes:
            digest = text_hash(new)
            seen[rel] = digest
            if recorded.get(rel) == digest:
                continue
            try:
                workflow.record(
                    ledger,
                    gov.root,
                    rel,
                    old,
                    new,
                    decision,
                    intent_id=wording.session.intent_id,
                    session_id=event.session_id,
                    contributor=Contributor("ai", wording.model),
                )
            except OSError as exc:
                problems.append(f"{rel}: not recorded ({exc}); `intent-ls record {rel}` records it")
                continue
            recorded[rel] = digest
    return problems


def judge_between(
    gov: Any,
    event: HookEvent,
    changes: list[Change],
    others: set[str],
    wording: Wording,
    orphaned: bool = False,
) -> list[str]:
    """Judges the changes made between the session's calls while a process of it was
    alive (:mod:`.lingering`): recorded when they may stay, held when they may not
    (kept as they are, logged for the human); returns lines for the agent. ``event``
    names the session the process belongs to; ``orphaned``, when that is another
    session than the one told, whose last call left the process."""
    told: list[str] = []
    entries: list[dict[str, Any]] = []
    to_record: list[tuple[str, str, str, Any]] = []
    store = Store(gov.root)
    for change in changes:
        rel = _workspace_rel(gov.root, change.path)
        if rel is None or rel in others or gov.scope.is_ignored(rel):
            continue
        effect = Effect(change.path, change.before, rel)
        old, new = _text(change.old) or "", _text(change.new)
        blocking, decision = _judge(gov, wording.session, effect, old, new)
        if blocking:
            told.append(_held(store, effect, change, event, blocking, entries, orphaned))
            continue
        to_record.append((rel, old, new or "", decision))
    problem = _log(gov.root, entries)
    if problem:
        told.append(problem)
    recorded = [rel for rel, *_ in to_record]
    told += _record(gov, event, wording, to_record)
    if recorded:
        whose = f"{_session(event)}'s" if orphaned else "this session's"
        told.append(f"{', '.join(recorded)}: recorded as {whose} change")
    return _clipped(told)


def _session(event: HookEvent) -> str:
    return f"{event.agent} session {event.session_id}"


def _workspace_rel(root: Path, path: str) -> str | None:
    prefix = str(root) + os.sep
    return path[len(prefix) :].replace(os.sep, "/") if path.startswith(prefix) else None


def _held(
    store: Store,
    effect: Effect,
    change: Change,
    event: HookEvent,
    verdicts: list[Verdict],
    entries: list[dict[str, Any]],
    orphaned: bool,
) -> str:
    """Logs a change that may not stay, which a human may have made, for the human:
    where its former bytes are kept, so that they can put it back."""
    code = verdicts[0].rule.code
    kept = store.keep_held(change.old) if change.old is not None else None
    where = f"; its former content is kept in {kept}" if kept else ""
    when = (
        f"after {_session(event)}'s last tool call"
        if orphaned
        else "between this session's tool calls"
    )
    why = f"changed {when} while a process it started was alive; {HELD_BECAUSE}"
    entries.append(_entry(event, effect.rel or "", code, log.UNRESTORABLE, detail=why + where))
    return f"{effect.rel}: {code}, held — {why}"


HELD_BECAUSE = "a human may have made the change instead, so it was neither put back nor taken"
