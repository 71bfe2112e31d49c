"""Refusals and next steps, worded for the model: it reads them and must be able to
comply without a human decoding them, so each names its code, the owners and the step."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from intent_ls.agents import MCP_SERVER, SELECT_TOOL
from intent_ls.agents.events import Decision, Outcome
from intent_ls.agents.gate.governance import SPEC_RELPATH, Governance
from intent_ls.policy.rules.rule import Verdict, Words
from intent_ls.spec.model import labels

if TYPE_CHECKING:
    from intent_ls.policy.session import Session
    from intent_ls.spec.model import Intent


def deny(code: str, message: str, step: str) -> Outcome:
    return Outcome(Decision.DENY, f"[intent-ls] {code}: {message} Next step: {step}")


def select_step(owners: Sequence[Intent]) -> str:
    selectable = [i for i in owners if i.selectable]
    if selectable:
        ids = " or ".join(f'"{i.id}"' for i in selectable)
        return (
            f"call the {SELECT_TOOL} tool of the MCP server {MCP_SERVER} with intent_id "
            f"{ids}, then retry."
        )
    return (
        "no IN_PROGRESS intent owns this path: ask the human to add it to an intent's "
        f"owned_scope in {SPEC_RELPATH} (agents never edit it), or work elsewhere."
    )


def approve_command(gov: Governance, verdict: Verdict) -> str:
    """The ``intent-ls approve`` command a human runs for ``verdict``: keyed on what it
    names, else on the whole file."""
    details = verdict.details
    wanted = details.get("approval")
    path = details.get("path", "")
    if isinstance(wanted, dict):
        return (
            f"`intent-ls approve --workspace {gov.root} {wanted['verdict_code']} "
            f"{wanted['path']} --hash {wanted['content_hash']} "
            f"--lines {wanted['start_line']}-{wanted['end_line']}`"
        )
    return f"`intent-ls approve --workspace {gov.root} {verdict.code} {path}`"


def words_for(gov: Governance, session: Session, rel: str) -> Words:
    """What the gate knows to word a verdict about ``rel`` for the model: its owners,
    the select step, the approve commands."""
    owners = gov.scope.owners(rel)
    return Words(
        rel,
        labels(owners) if owners else "",
        select_step(owners),
        SPEC_RELPATH,
        session.intent_id,
        lambda verdict: approve_command(gov, verdict),
    )


def ledger_noted(noted: Sequence[str]) -> str:
    """What the after-tool answer tells the model about the ledger's records and git."""
    return "\n".join(f"[intent-ls] {line}" for line in noted)


def orphans_told(told: Sequence[str]) -> str:
    """What the after-tool answer tells the model about files a process another session
    left running changed, once every process of that session had ended: judged as that
    session's, the human to be told."""
    if not told:
        return ""
    return (
        "[intent-ls] A process another agent session left running after its last tool "
        "call changed files before this call; each was judged as that session's change:\n"
        + "\n".join(f"- {line}" for line in told)
        + "\nA held file stays as it is, its former content kept, and `intent-ls check` "
        "fails on it until a human has looked. Next step: tell the human; these changes "
        "are not yours to build on or undo."
    )


def between_told(told: Sequence[str]) -> str:
    """What the after-tool answer tells the model about files changed between its calls
    while a process it started ran (:mod:`intent_ls.agents.effects.lingering`)."""
    if not told:
        return ""
    return (
        "[intent-ls] Between this session's tool calls, while a process one of its "
        "commands started was still running, files changed; each was judged as this "
        "session's change:\n"
        + "\n".join(f"- {line}" for line in told)
        + "\nA held file stays as it is, its former content kept, and `intent-ls check` "
        "fails on it until a human has looked. Next step: tell the human which process "
        "you left running, stop it with intent-ls's stop_background_processes tool (a "
        "later command cannot signal it), and make changes through your own tool calls."
    )


def effects_told(told: Sequence[str]) -> str:
    """What the after-tool answer tells the model about files put back."""
    if not told:
        return ""
    return (
        "[intent-ls] This tool call changed files it may not change, so intent-ls put them "
        "back as they were before the call (agents never change intent-ls's sidecar, the "
        "agents' settings or git's control files, nor files outside the selected intent's "
        "owned_scope):\n" + "\n".join(f"- {line}" for line in told)
    )
