"""The verdict vocabulary every front door shares: the codes, and the tables derived
from the rule registry (:mod:`intent_ls.policy.rules`; what each rule is and does lives
in its own file there).

These names are contracts (diagnostic codes, ledger ``verdicts[].code``, hook deny
reasons, ``intent-ls approve`` arguments). A door names a code here to *say* it (a
refusal, an approval it records); to decide anything about a code it asks the code's
rule (:func:`rule_of`), never compares codes.
"""

from __future__ import annotations

from intent_ls.policy.change import DEFAULT_MAX_DELETED_LINES
from intent_ls.policy.rules import (
    APPROVABLE,
    APPROVABLE_IN_ORDER,
    DEFAULT_SEVERITY,
    GATED,
    SCOPE_CODES,
    TERMINAL_APPROVABLE,
    rule_of,
)
from intent_ls.policy.rules.destructive_command import CODE as DESTRUCTIVE_COMMAND
from intent_ls.policy.rules.destructive_edit import CODE as DESTRUCTIVE_EDIT
from intent_ls.policy.rules.governance_error import CODE as GOVERNANCE_ERROR
from intent_ls.policy.rules.no_active_intent import CODE as NO_ACTIVE_INTENT
from intent_ls.policy.rules.out_of_scope import CODE as OUT_OF_SCOPE
from intent_ls.policy.rules.protected_path import CODE as PROTECTED_PATH
from intent_ls.policy.rules.scope_widened import CODE as SCOPE_WIDENED
from intent_ls.policy.rules.stale_file import CODE as STALE_FILE
from intent_ls.policy.rules.unanalysable_command import CODE as UNANALYSABLE_COMMAND
from intent_ls.spec.model import Severity


def severity_of(code: str) -> Severity:
    return rule_of(code).severity


__all__ = [
    "APPROVABLE",
    "APPROVABLE_IN_ORDER",
    "DEFAULT_MAX_DELETED_LINES",
    "DEFAULT_SEVERITY",
    "DESTRUCTIVE_COMMAND",
    "DESTRUCTIVE_EDIT",
    "GATED",
    "GOVERNANCE_ERROR",
    "NO_ACTIVE_INTENT",
    "OUT_OF_SCOPE",
    "PROTECTED_PATH",
    "SCOPE_CODES",
    "SCOPE_WIDENED",
    "STALE_FILE",
    "TERMINAL_APPROVABLE",
    "UNANALYSABLE_COMMAND",
    "severity_of",
]
