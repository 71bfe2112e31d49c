"""The verdict vocabulary every front door shares: codes, severities, and which verdicts
a human must resolve (how an approval resolves one: :mod:`intent_ls.policy.approvals`).

These names are contracts (diagnostic codes, ledger ``verdicts[].code``, hook deny
reasons, ``intent-ls approve`` arguments), so they are defined once, here, and the editor,
the hooks, the terminal verbs and the CI gate all read the same sets. The module is
import-free apart from the model so the agent-hook path pays nothing for it.
"""

from __future__ import annotations

from collections.abc import Mapping

from intent_ls.spec.model import Severity

NO_ACTIVE_INTENT = "no-active-intent"
OUT_OF_SCOPE = "out-of-scope"
STALE_FILE = "stale-file"
DESTRUCTIVE_EDIT = "destructive-edit"
#: A write to a path every edit of which needs a human (the sidecar, ``.env``, lock
#: files): an agent is refused outright, an editor asks for an approval.
PROTECTED_PATH = "protected-path"
#: A shell command that destroys data or history (``rm -rf``, ``git push --force``).
DESTRUCTIVE_COMMAND = "destructive-command"
#: A shell command whose effect could not be worked out (the classifier's ``unknown``).
UNANALYSABLE_COMMAND = "unanalysable-command"
#: A spec change since the base that widens an IN_PROGRESS intent or adds one.
SCOPE_WIDENED = "scope-widened"
#: The hook could not decide (its own failure, a broken spec): it fails closed.
GOVERNANCE_ERROR = "governance-error"

DEFAULT_SEVERITY: Mapping[str, Severity] = {
    NO_ACTIVE_INTENT: Severity.ERROR,
    OUT_OF_SCOPE: Severity.ERROR,
    STALE_FILE: Severity.WARNING,
    DESTRUCTIVE_EDIT: Severity.ERROR,
    PROTECTED_PATH: Severity.ERROR,
    DESTRUCTIVE_COMMAND: Severity.ERROR,
    UNANALYSABLE_COMMAND: Severity.WARNING,
    SCOPE_WIDENED: Severity.ERROR,
    GOVERNANCE_ERROR: Severity.ERROR,
}

#: Verdicts a mutation record may carry only until they are resolved: such a record
#: keeps its lines "open" (editor diagnostics, ``intent-ls check``) until approved,
#: reverted, or (scope codes) covered by the active intent.
GATED = frozenset({OUT_OF_SCOPE, NO_ACTIVE_INTENT, DESTRUCTIVE_EDIT, STALE_FILE})
#: Verdicts a human can approve. ``no-active-intent`` is not among them: it is resolved
#: by selecting an intent that owns the file, never by waving it through.
APPROVABLE_IN_ORDER = (OUT_OF_SCOPE, DESTRUCTIVE_EDIT, STALE_FILE)  # as messages list them
APPROVABLE = frozenset(APPROVABLE_IN_ORDER)
#: Verdicts about who may edit a file: resolved by selecting an intent that owns it.
SCOPE_CODES = frozenset({OUT_OF_SCOPE, NO_ACTIVE_INTENT})

#: More net deleted lines than this in one save is a destructive edit, unless the
#: repository's ``policy.maxDeletedLines`` says otherwise (:class:`.judge.PolicyConfig`).
DEFAULT_MAX_DELETED_LINES = 20


def severity_of(code: str) -> Severity:
    return DEFAULT_SEVERITY.get(code, Severity.ERROR)
