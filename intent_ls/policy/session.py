"""The turn state machine from the seed design: no mutation without a loaded intent.

::

    AWAITING_INTENT_SELECTION --select--> CONTEXT_LOADED --authorize(ok)--> ACTION_ALLOWED
                                               |  ^                              |
                                 authorize(bad)|  +----------complete------------+
                                               v  |
                                            BLOCKED --resolve--> CONTEXT_LOADED

``select`` and ``clear`` are allowed from every state; selecting again re-checks out the
context (the seed's "if intent changes, re-checkout").
"""

from __future__ import annotations

import enum
import os
from collections.abc import Sequence
from typing import Protocol

from intent_ls.spec.model import Intent, Spec, Status


class Judged(Protocol):
    """What the turn needs of a verdict (the judge's ``Verdict`` is one; the judge
    imports this module, so the turn names no judge type)."""

    @property
    def blocking(self) -> bool: ...


class TurnState(enum.StrEnum):
    AWAITING_INTENT_SELECTION = "AWAITING_INTENT_SELECTION"
    CONTEXT_LOADED = "CONTEXT_LOADED"
    ACTION_ALLOWED = "ACTION_ALLOWED"
    BLOCKED = "BLOCKED"


class Event(enum.StrEnum):
    SELECT = "select"
    CLEAR = "clear"
    AUTHORIZE_OK = "authorize_ok"
    AUTHORIZE_BLOCKED = "authorize_blocked"
    COMPLETE = "complete"
    RESOLVE = "resolve"


_S, _E = TurnState, Event
TRANSITIONS: dict[tuple[TurnState, Event], TurnState] = {
    **{(state, _E.SELECT): _S.CONTEXT_LOADED for state in _S},
    **{(state, _E.CLEAR): _S.AWAITING_INTENT_SELECTION for state in _S},
    (_S.CONTEXT_LOADED, _E.AUTHORIZE_OK): _S.ACTION_ALLOWED,
    (_S.CONTEXT_LOADED, _E.AUTHORIZE_BLOCKED): _S.BLOCKED,
    (_S.ACTION_ALLOWED, _E.AUTHORIZE_OK): _S.ACTION_ALLOWED,
    (_S.ACTION_ALLOWED, _E.AUTHORIZE_BLOCKED): _S.BLOCKED,
    (_S.ACTION_ALLOWED, _E.COMPLETE): _S.CONTEXT_LOADED,
    (_S.BLOCKED, _E.RESOLVE): _S.CONTEXT_LOADED,
    (_S.BLOCKED, _E.AUTHORIZE_BLOCKED): _S.BLOCKED,
    (_S.BLOCKED, _E.AUTHORIZE_OK): _S.ACTION_ALLOWED,
}


class IllegalTransition(Exception):
    def __init__(self, state: TurnState, event: Event) -> None:
        super().__init__(f"cannot {event.value} while {state.value}")
        self.state, self.event = state, event


class SelectionRefused(Exception):
    """Raised when an intent cannot be selected; ``code`` is stable for tools."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def check_selectable(spec: Spec, intent_id: str) -> Intent:
    intent = spec.get(intent_id)
    if intent is None:
        known = ", ".join(i.id for i in spec.intents if i.selectable) or "none"
        raise SelectionRefused(
            "unknown-intent", f"no intent '{intent_id}' in the spec (IN_PROGRESS intents: {known})"
        )
    if intent.status is not Status.IN_PROGRESS:
        raise SelectionRefused(
            "intent-not-in-progress",
            f"intent '{intent_id}' is {intent.status.value}; only IN_PROGRESS intents can be "
            "selected (change its status in active_intents.yaml first)",
        )
    return intent


class Session:
    """One session's turn: its id, state and selected intent.

    A plain class, mutable as a state machine is: every agent hook process builds one,
    where attrs' import would cost it tens of milliseconds. The id is 128 random bits in
    hex, as a UUID4's would be.
    """

    __slots__ = ("id", "intent_id", "state")

    def __init__(
        self,
        id: str | None = None,
        state: TurnState = TurnState.AWAITING_INTENT_SELECTION,
        intent_id: str | None = None,
    ) -> None:
        self.id = os.urandom(16).hex() if id is None else id
        self.state = state
        self.intent_id = intent_id

    def __repr__(self) -> str:
        return f"Session(id={self.id!r}, state={self.state!r}, intent_id={self.intent_id!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Session):
            return NotImplemented
        return (self.id, self.state, self.intent_id) == (other.id, other.state, other.intent_id)

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> Session:
        """A session of its own in the same turn (a save judged apart from the live one)."""
        return Session(self.id, self.state, self.intent_id)

    def _fire(self, event: Event) -> None:
        target = TRANSITIONS.get((self.state, event))
        if target is None:
            raise IllegalTransition(self.state, event)
        self.state = target

    @property
    def can_mutate(self) -> bool:
        """The invariant: a mutation needs a loaded intent, and a non-blocked turn."""
        return self.intent_id is not None and self.state in (
            TurnState.CONTEXT_LOADED,
            TurnState.ACTION_ALLOWED,
        )

    def select(self, spec: Spec, intent_id: str) -> Intent:
        """Loads ``intent_id``'s context; a refusal leaves the session unchanged."""
        intent = check_selectable(spec, intent_id)
        self._fire(Event.SELECT)
        self.intent_id = intent.id
        return intent

    def clear(self) -> None:
        self._fire(Event.CLEAR)
        self.intent_id = None

    def authorize(self, verdicts: Sequence[Judged]) -> bool:
        """Decides one mutation: allowed only with a loaded intent and no blocking verdict."""
        if self.intent_id is None:
            return False
        blocking = any(v.blocking for v in verdicts)
        self._fire(Event.AUTHORIZE_BLOCKED if blocking else Event.AUTHORIZE_OK)
        return not blocking

    def settle(self, blocked: bool) -> None:
        """Aligns the turn with what the open documents show after a change that no edit
        made (select, switch, clear, spec reload): without it a status bar said "context
        loaded" beside an out-of-scope error that the next keystroke turned into BLOCKED."""
        if self.intent_id is None:
            return
        if blocked and self.state is not TurnState.BLOCKED:
            self._fire(Event.AUTHORIZE_BLOCKED)
        elif not blocked and self.state is TurnState.BLOCKED:
            self._fire(Event.RESOLVE)

    def complete(self) -> None:
        self._fire(Event.COMPLETE)

    def resolve(self) -> None:
        self._fire(Event.RESOLVE)

    def revalidate(self, spec: Spec) -> bool:
        """Drops the selection when the spec no longer allows it; True if it was dropped."""
        if self.intent_id is None:
            return False
        try:
            check_selectable(spec, self.intent_id)
        except SelectionRefused:
            self.clear()
            return True
        return False
