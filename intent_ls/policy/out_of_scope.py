"""The scope rule: who may edit a path.

Every governed path is owned by the intents whose ``owned_scope`` matches it
(:mod:`intent_ls.scope.index`). A session may edit it only while it has selected an
intent that owns it:

- no intent selected: ``no-active-intent``, naming the owners a human could select;
- an intent selected that does not own the path: ``out-of-scope``, naming the active
  intent, its scope and the owners.

Both are resolved before a write by selecting an owning intent, never by an approval
(:mod:`intent_ls.policy.approvals`); an out-of-scope change already saved is approved
by its lines. :func:`intent_ls.policy.judge.evaluate` turns the finding into a verdict,
as it does with :mod:`~intent_ls.policy.destructive` and :mod:`~intent_ls.policy.stale`.
"""

from __future__ import annotations

from typing import Any

import attrs

from intent_ls.policy.session import Session
from intent_ls.policy.verdicts import NO_ACTIVE_INTENT, OUT_OF_SCOPE
from intent_ls.scope.index import ScopeIndex
from intent_ls.spec.model import labels


@attrs.frozen
class ScopeFinding:
    """Why this session may not edit the path: ``no-active-intent`` or ``out-of-scope``."""

    code: str
    message: str
    #: Ids of the intents that own the path.
    owners: tuple[str, ...]
    details: dict[str, Any] = attrs.field(hash=False)


def check_scope(session: Session, scope: ScopeIndex, rel_path: str) -> ScopeFinding | None:
    """The scope rule for ``rel_path`` (governed, workspace-relative); None: allowed."""
    owners = scope.owners(rel_path)
    owner_ids = tuple(i.id for i in owners)
    selectable = [i.id for i in owners if i.selectable]
    if session.intent_id is None:
        who = f"owned by {labels(owners)}" if owners else "owned by no intent"
        return ScopeFinding(
            NO_ACTIVE_INTENT,
            f"No active intent: select an intent before editing {rel_path} ({who}).",
            owner_ids,
            {
                "path": rel_path,
                "owners": list(owner_ids),
                "selectable": selectable,
                "state": session.state.value,
            },
        )
    if scope.owns(session.intent_id, rel_path):
        return None
    active = scope.spec.get(session.intent_id)
    active_name = f"{active.id} ({active.name})" if active else session.intent_id
    hint = f"it is owned by {labels(owners)}" if owners else "no intent owns it"
    return ScopeFinding(
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
    )
