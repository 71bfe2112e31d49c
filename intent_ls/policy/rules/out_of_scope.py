"""``out-of-scope``: a session may edit a path only while its intent owns it.

Every governed path is owned by the intents whose ``owned_scope`` matches it
(:mod:`intent_ls.scope.index`). Resolved before a write by selecting an owning intent,
never by an approval (:mod:`intent_ls.policy.approvals`); a change already saved is
approved by its lines (or the whole save), from the editor or the terminal.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from intent_ls.policy.rules.rule import (
    Anchor,
    Approvable,
    Door,
    Fixes,
    Rule,
    Subject,
    Verdict,
    Words,
    refusal,
)
from intent_ls.spec.model import Severity

CODE = "out-of-scope"


def judge(subject: Subject) -> Iterator[Verdict]:
    """One verdict per governed path the active intent does not own."""
    intent_id = subject.session.intent_id
    if intent_id is None:
        return
    from intent_ls.spec.model import labels

    scope = subject.scope
    active = scope.spec.get(intent_id)
    active_name = f"{active.id} ({active.name})" if active else intent_id
    for rel in subject.paths:
        if scope.owns(intent_id, rel):
            continue
        owners = scope.owners(rel)
        ids = tuple(i.id for i in owners)
        hint = f"it is owned by {labels(owners)}" if owners else "no intent owns it"
        yield RULE.verdict(
            f"{rel} is outside the scope of active intent {active_name}; {hint}.",
            {
                "path": rel,
                "active_intent": intent_id,
                "owners": list(ids),
                "selectable": [i.id for i in owners if i.selectable],
                "owned_scope": list(active.patterns) if active else [],
            },
            owners=ids,
        )


def _tell(rule: Rule, verdicts: Sequence[Verdict], words: Words) -> str:
    switch = (
        f"if this work belongs to another intent, {words.select} Otherwise " if words.owners else ""
    )
    return refusal(
        rule.code,
        verdicts[0].message,
        f"{switch}leave this file alone, or ask the human to widen the active intent's "
        f"owned_scope in {words.spec}.",
    )


def _put_back(rule: Rule, verdicts: Sequence[Verdict], words: Words) -> str:
    who = f"owned by {words.owners}" if words.owners else "no intent owns it"
    return (
        f"outside intent {words.intent}'s owned_scope ({who}); next step: leave it "
        f"alone, or ask the human to widen the scope in {words.spec}"
    )


RULE = Rule(
    CODE,
    "the active intent does not own the path",
    Severity.ERROR,
    order=20,
    gates=True,
    approval=Approvable.RANGE,
    approvers=frozenset({Door.EDITOR, Door.TERMINAL}),
    selects_intent=True,
    path_rule=True,
    judge=judge,
    anchor=Anchor.LINES,
    noun="out-of-scope edit",
    fixes=Fixes.SWITCH_OR_WIDEN,
    quick_fix="Approve out-of-scope edit",
    tell_model=_tell,
    tell_put_back=_put_back,
)
