"""``governance-error``: the hook could not decide (its own failure, a broken spec), so
it fails closed. Nobody approves it: the spec is fixed, or the failure is."""

from __future__ import annotations

from intent_ls.policy.rules.rule import Rule
from intent_ls.spec.model import Severity

CODE = "governance-error"

RULE = Rule(
    CODE,
    "intent-ls could not decide (a broken spec, its own failure)",
    Severity.ERROR,
    order=90,
    noun="governance error",
)
