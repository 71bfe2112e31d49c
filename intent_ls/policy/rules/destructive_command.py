"""``destructive-command``: a shell command that destroys data or history (``rm -rf``,
``git push --force``). The agents' shell gate judges it; a human approves the command's
text from the terminal (``intent-ls approve destructive-command --command ...``)."""

from __future__ import annotations

from intent_ls.policy.rules.rule import Approvable, Door, Rule
from intent_ls.spec.model import Severity

CODE = "destructive-command"

RULE = Rule(
    CODE,
    "a shell command that destroys data or history",
    Severity.ERROR,
    order=60,
    approval=Approvable.COMMAND,
    approvers=frozenset({Door.TERMINAL}),
    noun="destructive command",
)
