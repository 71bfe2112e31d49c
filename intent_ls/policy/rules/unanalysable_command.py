"""``unanalysable-command``: a shell command whose effect could not be worked out (the
classifier's ``unknown``). The agents' shell gate judges it; a human approves the
command's text from the terminal."""

from __future__ import annotations

from intent_ls.policy.rules.rule import Approvable, Door, Rule
from intent_ls.spec.model import Severity

CODE = "unanalysable-command"

RULE = Rule(
    CODE,
    "a shell command whose effect could not be worked out",
    Severity.WARNING,
    order=70,
    approval=Approvable.COMMAND,
    approvers=frozenset({Door.TERMINAL}),
    noun="unanalysable command",
)
