"""``no-active-intent``: a session that has selected no intent may edit nothing governed.

Resolved by selecting an intent that owns the path, never by an approval, live or
recorded. The verdict names the owners a human could select.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from intent_ls.policy.rules.rule import Anchor, Fixes, Rule, Subject, Verdict, Words, refusal
from intent_ls.spec.model import Severity

CODE = "no-active-intent"


def judge(subject: Subject) -> Iterator[Verdict]:
    """One verdict per governed path while the session has no intent selected."""
    if subject.session.intent_id is not None:
        return
    from intent_ls.spec.model import labels

    for rel in subject.paths:
        owners = subject.scope.owners(rel)
        ids = tuple(i.id for i in owners)
        who = f"owned by {labels(owners)}" if owners else "owned by no intent"
        yield RULE.verdict(
            f"No active intent: select an intent before editing {rel} ({who}).",
            {
                "path": rel,
                "owners": list(ids),
                "selectable": [i.id for i in owners if i.selectable],
                "state": subject.session.state.value,
            },
            owners=ids,
        )


def _tell(rule: Rule, verdicts: Sequence[Verdict], words: Words) -> str:
    who = f"it is owned by {words.owners}" if words.owners else "no intent owns it"
    return refusal(
        rule.code,
        f"this session has not selected an intent, so it may not write {words.rel} ({who}).",
        words.select,
    )


def _put_back(rule: Rule, verdicts: Sequence[Verdict], words: Words) -> str:
    who = f"owned by {words.owners}" if words.owners else "no intent owns it"
    return f"this session has selected no intent ({who}); next step: {words.select}"


RULE = Rule(
    CODE,
    "the session has selected no intent, so it may edit nothing governed",
    Severity.ERROR,
    order=10,
    gates=True,
    selects_intent=True,
    path_rule=True,
    judge=judge,
    anchor=Anchor.LINES,
    noun="edit without an active intent",
    fixes=Fixes.SELECT_INTENT,
    tell_model=_tell,
    tell_put_back=_put_back,
)
