"""A file write before it happens, judged as the editor judges a save: the session must
have selected an intent that owns the path, the file must not have changed on disk since
this session last read or wrote it, nothing under ``.orchestration/`` may be written, and
a destructive change needs a human (asked where the agent can ask, else denied with the
approve command)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

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
from intent_ls.agents.gate.messages import deny, words_for
from intent_ls.common.hashing import text_hash
from intent_ls.policy.approvals import whole_file_request
from intent_ls.policy.session import Session
from intent_ls.policy.verdicts import GOVERNANCE_ERROR, PROTECTED_PATH
from intent_ls.scope.index import is_sidecar


class Judged(NamedTuple):
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
    rel = rel_path(gov, event.cwd, change.path)
    if rel is None:
        return Judged(Outcome())
    first = _before_policy(gov, rel)
    if first is not None:
        return first
    targets = [rel]
    if change.move_to is not None:
        moved = rel_path(gov, event.cwd, change.move_to)
        if moved is not None and _protected(gov, moved) is not None:
            return judge_file(gov, session, state, event, FileChange(change.move_to), ask_supported)
        if moved is not None:
            targets.append(moved)
    old = read_text(gov, rel)
    new, decision = _decide(gov, session, state, change, targets, old)
    blocking = decision.blocking()
    pending = tuple((t, read_text(gov, t)) for t in targets)
    if not blocking:
        return Judged(Outcome(), pending)
    rule = blocking[0].rule
    told = [v for v in blocking if v.code == rule.code] if rule.asks_agent else blocking[:1]
    words = words_for(gov, session, told[0].details.get("path", rel))
    reason = rule.tell_model(rule, told, words)
    if not (rule.asks_agent and ask_supported):
        return Judged(Outcome(Decision.DENY, reason))
    asked = () if new is None else ((rel, asked_about(rel, old, new, told)),)
    return Judged(Outcome(Decision.ASK, reason), pending, asked)


def _before_policy(gov: Governance, rel: str) -> Judged | None:
    """The answer before any rule is asked: a path no agent may write, an ignored path
    (let through), a broken spec (fail closed); None: the rules decide."""
    refused = _protected(gov, rel)
    if refused is not None:
        return Judged(refused)
    if gov.scope.is_ignored(rel):
        return Judged(Outcome())
    if gov.broken:
        return Judged(deny(GOVERNANCE_ERROR, gov.broken + ".", "ask the human to fix the spec."))
    return None


def _decide(
    gov: Governance,
    session: Session,
    state: dict[str, Any],
    change: FileChange,
    targets: Sequence[str],
    old: str | None,
) -> tuple[str | None, Any]:
    """The text the call would leave (None: unknown or no text) and the workflow's
    decision about it, the ledger's approvals applied."""
    from intent_ls import workflow

    rel = targets[0]
    if change.delete or change.move_to is not None:
        moved = targets[1] if len(targets) > 1 else None
        return None, workflow.judge_file_operation(
            session, gov.scope, rel, moved, text=old, root=gov.root
        )
    new = change.new_text if change.transform is None else change.transform(old)
    if new is None:
        return None, workflow.judge_path(session, gov.scope, rel)
    disk = _disk(gov, state, rel, old)
    return new, workflow.judge_write(
        session, gov.scope, rel, old or "", new, disk=disk, root=gov.root
    )


def _protected(gov: Governance, rel: str) -> Outcome | None:
    """The refusal of a write no agent may make, whatever the intent: the sidecar, a
    path the repository's policy protects, the agents' own settings, a hard link."""
    if is_sidecar(rel):
        return deny(
            PROTECTED_PATH,
            f"{rel} is intent-ls's own sidecar: agents never write .orchestration/ (the "
            "spec is the human's contract, and the ledger is append-only through "
            "intent-ls).",
            f"to work on an intent call {SELECT_TOOL}; to change an intent's scope, ask "
            "the human to edit the spec.",
        )
    if _policy_protects(gov, rel):
        return _policy_refusal(rel)
    if _always_protected(rel):
        return deny(
            PROTECTED_PATH,
            f"{rel} is protected from agents (the agents' settings and intent-ls's own "
            f"files: {_protected_names()}): a change made any other way is put back.",
            "leave it alone; ask the human to change it if it must change.",
        )
    linked = hard_links(gov, rel)
    if linked:
        return deny(
            PROTECTED_PATH,
            f"{rel} has {linked} names (hard links): a write through it changes every "
            "one of them, and intent-ls cannot tell which are protected.",
            f"remove the link ({rel}) and write a fresh file, or ask the human.",
        )
    return None


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
