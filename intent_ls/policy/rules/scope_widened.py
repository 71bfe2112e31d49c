"""``scope-widened``: a spec change since the base that widens an IN_PROGRESS intent or
adds one. ``intent-ls check`` judges it (:mod:`intent_ls.check.spec_change`); a human
approves the spec as it stands from the terminal."""

from __future__ import annotations

from intent_ls.policy.rules.rule import Approvable, Door, Rule
from intent_ls.spec.model import Severity

CODE = "scope-widened"

RULE = Rule(
    CODE,
    "the spec widens an IN_PROGRESS intent or adds one",
    Severity.ERROR,
    order=80,
    approval=Approvable.WHOLE_FILE,
    approvers=frozenset({Door.TERMINAL}),
    noun="widened scope",
)
