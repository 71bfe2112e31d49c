"""The turn state machine: every transition, refusals, and the mutation invariant."""

from __future__ import annotations

import itertools

import pytest

from intent_ls.policy.judge import Verdict
from intent_ls.policy.session import (
    TRANSITIONS,
    Event,
    IllegalTransition,
    SelectionRefused,
    Session,
    TurnState,
)
from intent_ls.spec.model import Glob, Intent, Span, Spec, Status

SPEC = Spec(
    (
        Intent("A", "Live", Status.IN_PROGRESS, (Glob("a/**", Span.point()),)),
        Intent("D", "Draft", Status.DRAFT, (Glob("d/**", Span.point()),)),
    )
)
BAD = Verdict("out-of-scope", "no")


def test_initial_state_forbids_mutation() -> None:
    session = Session()
    assert session.state is TurnState.AWAITING_INTENT_SELECTION
    assert not session.can_mutate
    assert not session.authorize([])
    assert session.state is TurnState.AWAITING_INTENT_SELECTION


def test_happy_path() -> None:
    session = Session()
    assert session.select(SPEC, "A").id == "A"
    assert session.state is TurnState.CONTEXT_LOADED and session.can_mutate
    assert session.authorize([])
    assert session.state is TurnState.ACTION_ALLOWED
    session.complete()
    assert session.state is TurnState.CONTEXT_LOADED


def test_blocked_then_resolved() -> None:
    session = Session()
    session.select(SPEC, "A")
    assert not session.authorize([BAD])
    assert session.state is TurnState.BLOCKED and not session.can_mutate
    session.resolve()
    assert session.state is TurnState.CONTEXT_LOADED


@pytest.mark.parametrize(
    ("intent_id", "code"), [("nope", "unknown-intent"), ("D", "intent-not-in-progress")]
)
def test_refused_selection_leaves_state_unchanged(intent_id: str, code: str) -> None:
    session = Session()
    session.select(SPEC, "A")
    with pytest.raises(SelectionRefused) as info:
        session.select(SPEC, intent_id)
    assert info.value.code == code
    assert (session.state, session.intent_id) == (TurnState.CONTEXT_LOADED, "A")


def test_illegal_transitions_raise() -> None:
    session = Session()
    with pytest.raises(IllegalTransition):
        session.complete()
    with pytest.raises(IllegalTransition):
        session.resolve()


def test_transition_table_is_total_for_select_and_clear_and_keeps_invariant() -> None:
    for state, event in itertools.product(TurnState, Event):
        target = TRANSITIONS.get((state, event))
        if event in (Event.SELECT, Event.CLEAR):
            assert target is not None
        if target is TurnState.ACTION_ALLOWED:
            assert state is not TurnState.AWAITING_INTENT_SELECTION


def test_revalidate_drops_a_selection_the_spec_no_longer_allows() -> None:
    session = Session()
    session.select(SPEC, "A")
    assert not session.revalidate(SPEC)
    assert session.revalidate(Spec())
    assert session.intent_id is None
    assert session.state is TurnState.AWAITING_INTENT_SELECTION


def test_settle_follows_what_the_open_documents_show() -> None:
    session = Session()
    session.settle(True)  # no intent: nothing to block, the state says so already
    assert session.state is TurnState.AWAITING_INTENT_SELECTION
    session.select(SPEC, "A")
    session.settle(False)
    assert session.state is TurnState.CONTEXT_LOADED
    session.settle(True)
    assert session.state is TurnState.BLOCKED and not session.can_mutate
    session.settle(True)
    assert session.state is TurnState.BLOCKED
    session.settle(False)
    assert session.state is TurnState.CONTEXT_LOADED
    assert session.authorize([])
    session.settle(False)  # an allowed turn stays allowed
    assert session.state is TurnState.ACTION_ALLOWED
    session.settle(True)
    assert session.state is TurnState.BLOCKED
