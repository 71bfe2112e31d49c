"""A file write before it happens, judged as the editor judges a save: the session must
have selected an intent that owns the path, the file must not have changed on disk since
this session last read or wrote it, nothing under ``.orchestration/`` may be written, and
a destructive change needs a human (asked where the agent can ask, else denied with the
approve command)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from intent_ls.agents import SELECT_TOOL
from intent_ls.agents.events import Decision, FileChange, HookEvent, Outcome
from intent_ls.agents.gate.governance import (
    SPEC_RELPATH,
    Governance,
    hard_links,
    read_text,
    rel_path,
    session_of,
)
from intent_ls.agents.gate.messages import approve_command, deny, select_step
from intent_ls.common.hashing import text_hash
from intent_ls.policy.approvals import whole_file_request
from intent_ls.policy.session import Session
from intent_ls.policy.verdicts import (
    DESTRUCTIVE_EDIT,
    GOVERNANCE_ERROR,
    NO_ACTIVE_INTENT,
    OUT_OF_SCOPE,
    PROTECTED_PATH,
    STALE_FILE,
)
from intent_ls.scope.index import is_sidecar
from intent_ls.spec.model import labels


@attrs.frozen
class Judged:
    outcome: Outcome
    #: (rel, content before the write) of every governed file the call may write.
    pending: tuple[tuple[str, str | None], ...] = ()
    #: (rel, the change a human is asked about): see :func:`asked_about`.
    asked: tuple[tuple[str, dict[str, Any]], ...] = ()


def judge_file(
    gov: Governance,
    session: Session,
    state: dict[str, Any],
    event: HookEvent,
    change: FileChange,
    ask_supported: bool,
) -> Judged:
    from intent_ls import workflow

    rel = rel_path(gov, event.cwd, change.path)
    if rel is None:
        return Judged(Outcome())
    if is_sidecar(rel):
        return Judged(
            deny(
                PROTECTED_PATH,
                f"{rel} is intent-ls's own sidecar: agents never write .orchestration/ (the "
                "spec is the human's contract, and the ledger is append-only through "
                "intent-ls).",
                f"to work on an intent call {SELECT_TOOL}; to change an intent's scope, ask "
                "the human to edit the spec.",
            )
        )
    if _policy_protects(gov, rel):
        return Judged(_policy_refusal(rel))
    if _always_protected(rel):
        return Judged(
            deny(
                PROTECTED_PATH,
                f"{rel} is protected from agents (the agents' settings and intent-ls's own "
                f"files: {_protected_names()}): a change made any other way is put back.",
                "leave it alone; ask the human to change it if it must change.",
            )
        )
    linked = hard_links(gov, rel)
    if linked:
        return Judged(
            deny(
                PROTECTED_PATH,
                f"{rel} has {linked} names (hard links): a write through it changes every "
                "one of them, and intent-ls cannot tell which are protected.",
                f"remove the link ({rel}) and write a fresh file, or ask the human.",
            )
        )
    if gov.scope.is_ignored(rel):
        return Judged(Outcome())
    if gov.broken:
        return Judged(deny(GOVERNANCE_ERROR, gov.broken + ".", "ask the human to fix the spec."))
    targets = [rel]
    if change.move_to is not None:
        moved = rel_path(gov, event.cwd, change.move_to)
        if moved is not None and (
            is_sidecar(moved) or _policy_protects(gov, moved) or _always_protected(moved)
        ):
            return judge_file(gov, session, state, event, FileChange(change.move_to), ask_supported)
        if moved is not None:
            targets.append(moved)
    old = read_text(gov, rel)
    new: str | None = None
    if change.delete or change.move_to is not None:
        decision = workflow.judge_file_operation(
            session, gov.scope, rel, targets[1] if len(targets) > 1 else None, text=old
        )
    else:
        new = change.new_text if change.transform is None else change.transform(old)
        if new is None:
            decision = workflow.decide(rel, _path_verdicts(gov, session, rel))
        else:
            decision = workflow.judge_write(
                session, gov.scope, rel, old or "", new, disk=_disk(gov, state, rel, old)
            )
    if any(v.code in (STALE_FILE, DESTRUCTIVE_EDIT) for v in decision.open):
        decision = workflow.decide(
            rel, decision.verdicts, workflow.recorded_approvals(gov.root, rel)
        )
    blocking = decision.blocking()
    pending = tuple((t, read_text(gov, t)) for t in targets)
    if not blocking:
        return Judged(Outcome(), pending)
    first = blocking[0]
    if first.code == NO_ACTIVE_INTENT:
        owners = gov.scope.owners(rel)
        who = f"it is owned by {labels(owners)}" if owners else "no intent owns it"
        return Judged(
            deny(
                NO_ACTIVE_INTENT,
                f"this session has not selected an intent, so it may not write {rel} ({who}).",
                select_step(owners),
            )
        )
    if first.code == OUT_OF_SCOPE:
        owners = gov.scope.owners(first.details.get("path", rel))
        return Judged(
            deny(
                OUT_OF_SCOPE,
                first.message,
                (
                    f"if this work belongs to another intent, {select_step(owners)} Otherwise "
                    if owners
                    else ""
                )
                + "leave this file alone, or ask the human to widen the active intent's "
                f"owned_scope in {SPEC_RELPATH}.",
            )
        )
    if first.code == STALE_FILE:
        return Judged(
            deny(
                STALE_FILE,
                first.message.replace("since you read it", "since this session read it") + ".",
                f"read {rel} again and redo the change on its current content.",
            )
        )
    findings = [v for v in blocking if v.code == DESTRUCTIVE_EDIT]
    kinds = {v.details.get("kind") for v in findings}
    code = PROTECTED_PATH if "protected-path" in kinds else DESTRUCTIVE_EDIT
    approve = "; ".join(approve_command(gov, v.details) for v in findings)
    what = "; ".join(v.message for v in findings)
    reason = (
        f"[intent-ls] {code}: {what}. A human must approve this before it is written: "
        f"{approve} — then retry. If the change was not meant to destroy this, redo it "
        "without the deletion."
    )
    if not ask_supported:
        return Judged(Outcome(Decision.DENY, reason))
    asked = () if new is None else ((rel, asked_about(rel, old, new, findings)),)
    return Judged(Outcome(Decision.ASK, reason), pending, asked)


def _policy_protects(gov: Governance, rel: str) -> bool:
    """Whether the repository's ``policy.agentProtectedPaths`` keeps ``rel`` from agents."""
    globs = gov.spec.policy.agent_protected_paths
    if not globs:
        return False
    from intent_ls.agents.effects.protected_set import PolicyPaths

    return PolicyPaths(globs).match(rel)


def _always_protected(rel: str) -> bool:
    from intent_ls.agents.effects.protected_set import is_protected_rel

    return is_protected_rel(rel)


def _policy_refusal(rel: str) -> Outcome:
    return deny(
        PROTECTED_PATH,
        f"{rel} is protected from agents by the repository's policy (policy."
        f"agentProtectedPaths in {SPEC_RELPATH}): no agent tool call may change it, and a "
        "change made any other way is put back.",
        "leave it alone, or ask the human to change it.",
    )


def asked_about(rel: str, old: str | None, new: str, findings: Sequence[Any]) -> dict[str, Any]:
    """What the agent's permission prompt asks a human about: the content the write will
    leave (its hash) and the approvals the ask's ``intent-ls approve`` commands would
    record. A yes at the prompt is recorded as those approvals once the after-tool event
    finds exactly that content (:func:`.record.prompt_approvals`)."""
    approvals = []
    for verdict in findings:
        wanted = verdict.details.get("approval")
        if not isinstance(wanted, dict):  # `intent-ls approve CODE PATH`: the whole file
            wanted = whole_file_request(verdict.code, rel, old)
        approvals.append(dict(wanted))
    return {"after": text_hash(new), "approvals": approvals}


def _path_verdicts(gov: Governance, session: Session, rel: str) -> tuple[Any, ...]:
    from intent_ls.policy.judge import evaluate

    return evaluate(session, gov.scope, rel)


def _disk(gov: Governance, state: dict[str, Any], rel: str, old: str | None) -> Any:
    from intent_ls.policy.stale import DiskState

    known = state.get("seen")
    if not isinstance(known, dict) or rel not in known:
        return None  # never seen by this session: nothing to be stale against
    seen = known[rel] if isinstance(known[rel], str) else None
    current = None if old is None else text_hash(old)
    changer = None
    if seen != current and current is not None:
        changer = _changer(gov, rel, current)
    return DiskState(seen, current, changer, "read")


def _changer(gov: Governance, rel: str, digest: str) -> Any:
    from intent_ls.ledger.lookup import path_records
    from intent_ls.ledger.writers import changer_from_records

    try:
        newest = path_records(gov.root, rel, 20)
        return changer_from_records(reversed(newest), rel, digest)
    except Exception:  # naming the writer is a courtesy; the verdict stands without it
        return None


def judge_files(
    gov: Governance,
    state: dict[str, Any],
    event: HookEvent,
    changes: Sequence[FileChange],
    ask_supported: bool,
) -> Judged:
    """Every file a call writes; the first refusal wins, asks are asked together."""
    session = session_of(gov, state)
    pending: list[tuple[str, str | None]] = []
    asks: list[Outcome] = []
    asked: list[tuple[str, dict[str, Any]]] = []
    for change in changes:
        judged = judge_file(gov, session, state, event, change, ask_supported)
        if judged.outcome.decision is Decision.DENY:
            return judged
        if judged.outcome.decision is Decision.ASK:
            asks.append(judged.outcome)
        pending.extend(judged.pending)
        asked.extend(judged.asked)
    if asks:
        reason = " ".join(o.reason for o in asks)
        return Judged(Outcome(Decision.ASK, reason), tuple(pending), tuple(asked))
    return Judged(Outcome(), tuple(pending))


def _protected_names() -> str:
    """The always-protected paths as a refusal lists them: each agent's settings, then
    intent-ls's own files."""
    from intent_ls.agents import registry

    shown = [name for profile in registry.profiles() for name in profile.protected_shown]
    return ", ".join([*shown, ".intentignore", ".gitattributes"])
