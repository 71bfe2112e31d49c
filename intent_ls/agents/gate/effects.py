"""The gate's side of verifying a call by its effects (:mod:`intent_ls.agents.effects`):
what it knows and how it words it, handed to the effects so they need no import of the
gate, and their findings added to the after-tool answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from intent_ls.agents import sessions
from intent_ls.agents.events import HookEvent, Outcome
from intent_ls.agents.gate.governance import SPEC_RELPATH, Governance, session_of
from intent_ls.agents.gate.messages import approve_command, effects_told, select_step
from intent_ls.agents.gate.record import model_of
from intent_ls.policy.verdicts import NO_ACTIVE_INTENT
from intent_ls.spec.model import labels

if TYPE_CHECKING:
    from intent_ls.agents.effects.attribute import Wording
    from intent_ls.agents.effects.git import GitStatus
    from intent_ls.agents.effects.verify import Restored


def wording(gov: Governance, event: HookEvent) -> Wording:
    """The gate's knowledge and phrasing, for the effects of a call."""
    from intent_ls.agents.effects.attribute import Wording

    state = sessions.read_state(gov.root, event.agent, event.session_id)
    session = session_of(gov, state)

    def scope_step(rel: str, verdict: Any) -> str:
        owners = gov.scope.owners(rel)
        who = f"owned by {labels(owners)}" if owners else "no intent owns it"
        if verdict.code == NO_ACTIVE_INTENT:
            return f"this session has selected no intent ({who}); next step: {select_step(owners)}"
        return (
            f"outside intent {session.intent_id}'s owned_scope ({who}); next step: leave it "
            f"alone, or ask the human to widen the scope in {SPEC_RELPATH}"
        )

    return Wording(
        session,
        event.model or model_of(event, state),
        lambda details: approve_command(gov, details),
        scope_step,
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
    from intent_ls.agents.effects.attribute import judge_files

    if event.tool is None:
        return outcome
    found = judge_files(gov, event, restored, declared, wording(gov, event), status)
    told = [*restored.told, *found]
    if not told:
        return outcome
    context = "\n".join(filter(None, [outcome.context, effects_told(told)]))
    return Outcome(outcome.decision, outcome.reason, context)
