"""The gate's side of verifying a call by its effects (:mod:`intent_ls.agents.effects`):
what it knows and how it words it, handed to the effects so they need no import of the
gate, and their findings added to the after-tool answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from intent_ls.agents import sessions
from intent_ls.agents.events import HookEvent, Outcome
from intent_ls.agents.gate.governance import Governance, session_of
from intent_ls.agents.gate.messages import (
    between_told,
    effects_told,
    ledger_noted,
    orphans_told,
    words_for,
)
from intent_ls.agents.gate.record import model_of

if TYPE_CHECKING:
    from intent_ls.agents.effects.attribute import Wording
    from intent_ls.agents.effects.git import GitStatus
    from intent_ls.agents.effects.verify import Restored


def wording(gov: Governance, event: HookEvent) -> Wording:
    """The gate's knowledge and phrasing, for the effects of a call."""
    from intent_ls.agents.effects.attribute import Wording

    state = sessions.read_state(gov.root, event.agent, event.session_id)
    session = session_of(gov, state)

    return Wording(
        session,
        event.model or model_of(event, state),
        lambda rel: words_for(gov, session, rel),
    )


def tell_effects(
    gov: Governance,
    event: HookEvent,
    restored: Restored,
    outcome: Outcome,
    declared: set[str],
    status: GitStatus | None = None,
) -> Outcome:
    """The after-tool answer, with what the call changed and was put back (or recorded).
    ``declared``: what the tool's input says it writes (recorded by the gate itself);
    ``status``: the ``git status`` after the call, when already started."""
    from intent_ls.agents.effects import lingering
    from intent_ls.agents.effects.attribute import judge_between, judge_files
    from intent_ls.agents.effects.branch_scope import take_off

    if event.tool is None:
        return outcome
    words = wording(gov, event)
    changed, others = lingering.changes(gov.root, event, restored.snapshot)
    held = judge_between(gov, event, changed, others, words) if changed else []
    orphans = _orphans(gov, event, restored.snapshot, {change.path for change in changed})
    taken_off = take_off(gov, words.session, restored.snapshot)
    # The branch and files moved back: git's status, started before, no longer holds.
    found = judge_files(gov, event, restored, declared, words, None if taken_off else status)
    told = [*restored.told, *taken_off, *found]
    if not told and not held and not orphans and not restored.noted:
        return outcome
    parts = [
        outcome.context,
        orphans_told(orphans),
        between_told(held),
        effects_told(told),
        ledger_noted(restored.noted),
    ]
    return Outcome(outcome.decision, outcome.reason, "\n".join(filter(None, parts)))


def _orphans(
    gov: Governance, event: HookEvent, snapshot: dict[str, Any], judged: set[str]
) -> list[str]:
    """Judges what processes other sessions' last calls left running changed, as theirs
    (:func:`.lingering.orphaned`), but for what this session's were judged for."""
    from intent_ls.agents.effects import lingering
    from intent_ls.agents.effects.attribute import judge_between

    told: list[str] = []
    for orphan in lingering.orphaned(gov.root, event, snapshot, judged):
        owner = orphan.owner
        words = wording(gov, owner)
        told += judge_between(gov, owner, orphan.changes, orphan.others, words, orphaned=True)
    return told
