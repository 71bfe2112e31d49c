"""The governance rules. Every front door (editor, agent hook, CI gate) asks here.

``evaluate`` is the one entry point: given who is acting (the session), what governs
(spec + compiled scope) and what is touched (a workspace-relative path), it returns
the verdicts that apply. No verdicts means the mutation is allowed.
"""

from __future__ import annotations

from typing import Any

import attrs

from intent_ls.model import Intent, Severity
from intent_ls.scope import ScopeIndex
from intent_ls.session import Session

NO_ACTIVE_INTENT = "no-active-intent"
OUT_OF_SCOPE = "out-of-scope"
STALE_FILE = "stale-file"
DESTRUCTIVE_EDIT = "destructive-edit"

DEFAULT_SEVERITY = {
    NO_ACTIVE_INTENT: Severity.ERROR,
    OUT_OF_SCOPE: Severity.ERROR,
    STALE_FILE: Severity.WARNING,
    DESTRUCTIVE_EDIT: Severity.ERROR,
}


@attrs.frozen
class Verdict:
    code: str
    message: str
    owners: tuple[str, ...] = ()
    details: dict[str, Any] = attrs.field(factory=dict, hash=False)
    blocking: bool = True

    @property
    def severity(self) -> Severity:
        return DEFAULT_SEVERITY.get(self.code, Severity.ERROR)

    def to_dict(self) -> dict[str, Any]:
        """The machine-readable form agents act on."""
        return {"code": self.code, "message": self.message, "details": dict(self.details)}


def _describe(intents: tuple[Intent, ...]) -> str:
    return ", ".join(f"{i.id} ({i.name}, {i.status.value})" for i in intents)


def evaluate(session: Session, scope: ScopeIndex, rel_path: str) -> tuple[Verdict, ...]:
    """Verdicts for mutating ``rel_path`` (a governed, workspace-relative POSIX path)."""
    if scope.is_ignored(rel_path):
        return ()
    owners = scope.owners(rel_path)
    owner_ids = tuple(i.id for i in owners)
    selectable = [i.id for i in owners if i.selectable]
    if session.intent_id is None:
        who = f"owned by {_describe(owners)}" if owners else "owned by no intent"
        return (
            Verdict(
                NO_ACTIVE_INTENT,
                f"No active intent: select an intent before editing {rel_path} ({who}).",
                owner_ids,
                {
                    "path": rel_path,
                    "owners": list(owner_ids),
                    "selectable": selectable,
                    "state": session.state.value,
                },
            ),
        )
    if scope.owns(session.intent_id, rel_path):
        return ()
    active = scope.spec.get(session.intent_id)
    active_name = f"{active.id} ({active.name})" if active else session.intent_id
    hint = f"it is owned by {_describe(owners)}" if owners else "no intent owns it"
    return (
        Verdict(
            OUT_OF_SCOPE,
            f"{rel_path} is outside the scope of active intent {active_name}; {hint}.",
            owner_ids,
            {
                "path": rel_path,
                "active_intent": session.intent_id,
                "owners": list(owner_ids),
                "selectable": selectable,
                "owned_scope": list(active.patterns) if active else [],
            },
        ),
    )
