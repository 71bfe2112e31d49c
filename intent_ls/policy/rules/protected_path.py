"""``protected-path``: a write no agent may make — intent-ls's own sidecar, the agents'
settings, a path the repository's ``policy.agentProtectedPaths`` lists, a file with
hard links. The agents' gate judges it (:mod:`intent_ls.agents.gate.judge_write`,
:mod:`intent_ls.agents.effects.protected_set`); an agent is refused outright and a
change made any other way is put back. Nobody approves it: a human changes such a
file by hand.
"""

from __future__ import annotations

from intent_ls.policy.rules.rule import Rule
from intent_ls.spec.model import Severity

CODE = "protected-path"

RULE = Rule(
    CODE,
    "no agent may write this path",
    Severity.ERROR,
    order=50,
    noun="write to a protected path",
)
