"""What ``intent-ls check`` reports: findings, and the rules they belong to.

Rule ids are stable: CI configurations, SARIF consumers and people grep for them, so they
are part of the interface (``docs/check.md`` describes each).
"""

from __future__ import annotations

from typing import Any

import attrs

from intent_ls.policy.verdicts import SCOPE_WIDENED

UNCOVERED_CHANGE = "uncovered-change"
UNCOVERED_DELETION = "uncovered-deletion"
INTENT_NOT_OWNER = "intent-not-owner"
INTENT_NOT_IN_PROGRESS = "intent-not-in-progress"
UNAPPROVED_VERDICT = "unapproved-verdict"
LEDGER_INVALID = "ledger-invalid"
SPEC_INVALID = "spec-invalid"
#: The verdict ``scope-widened`` (its rule: :mod:`intent_ls.policy.rules.scope_widened`).
SCOPE_WIDENED_RULE = SCOPE_WIDENED
SYMLINK_CHANGE = "symlink-change"
AGENT_EFFECT = "agent-effect"
#: Optional (``intent-ls check --enable done-without-change``).
DONE_WITHOUT_CHANGE = "done-without-change"
OPTIONAL_RULES = (DONE_WITHOUT_CHANGE,)


@attrs.frozen
class Rule:
    id: str
    name: str
    short: str
    help: str


RULES: tuple[Rule, ...] = (
    Rule(
        UNCOVERED_CHANGE,
        "UncoveredChange",
        "Changed lines that no ledger record covers",
        "Every added or modified line must match (by content hash) a range of a trace "
        "record. Make the change through an editor or agent running intent-ls under an "
        "intent that owns the file, record a generator's output with `intent-ls record "
        "PATH --intent ID`, or revert it.",
    ),
    Rule(
        UNCOVERED_DELETION,
        "UncoveredDeletion",
        "Deleted lines or files that no recorded save or approval covers",
        "Deleted lines are covered when the file's recorded saves lead from its base "
        "content to its current content; a deleted or renamed file needs an approved "
        "(`intent-ls approve destructive-edit PATH --hash HASH`) "
        "destructive-edit for its content.",
    ),
    Rule(
        INTENT_NOT_OWNER,
        "IntentNotOwner",
        "The covering record's intent does not own the file",
        "The record that wrote these lines belongs to an intent whose owned_scope (in the "
        "current spec) does not match the file, or to no intent at all. Redo the change "
        "under an owning intent, widen the intent's owned_scope, or approve the "
        "out-of-scope edit.",
    ),
    Rule(
        INTENT_NOT_IN_PROGRESS,
        "IntentNotInProgress",
        "The covering record's intent is not IN_PROGRESS",
        "Only IN_PROGRESS intents may change code. Set the intent back to IN_PROGRESS "
        "while its changes are under review, or redo them under an active intent.",
    ),
    Rule(
        UNAPPROVED_VERDICT,
        "UnapprovedVerdict",
        "Saved despite an out-of-scope, destructive-edit or stale-file verdict",
        "The record that wrote these lines carries a governance verdict that no human "
        "approved. Approve it (`intent-ls approve CODE PATH`, or the editor's "
        "intent.approve code action) or revert the change.",
    ),
    Rule(
        SYMLINK_CHANGE,
        "SymlinkChange",
        "A governed file became a symlink, or a symlink points to ungoverned code",
        "The ledger records text saves, never symlinks. A governed file replaced by a "
        "symlink, or a symlink whose target is outside the workspace, in the sidecar, "
        "ignored or owned by no intent, is a change no record covers. Restore the file, "
        "or point the link at governed code.",
    ),
    Rule(
        AGENT_EFFECT,
        "AgentEffect",
        "An agent's tool call changed a file it may not change, and it could not be put back",
        "After every agent tool call the hooks put protected and out-of-scope files back as "
        "they were; this one's former content was not kept (too large, or not a regular "
        "file). Look at the file, restore it yourself, then delete the line from "
        ".orchestration/.local/effects.jsonl.",
    ),
    Rule(
        LEDGER_INVALID,
        "LedgerInvalid",
        "The trace ledger fails verification",
        "agent_trace.jsonl is append-only and hash-chained; a line was edited, removed or "
        "torn. Restore the ledger from version control; `intent-ls trace verify` names "
        "the first bad line.",
    ),
    Rule(
        SPEC_INVALID,
        "SpecInvalid",
        "The intent spec has errors",
        "Ownership cannot be decided against an invalid active_intents.yaml; "
        "`intent-ls validate` lists the problems.",
    ),
    Rule(
        SCOPE_WIDENED_RULE,
        "ScopeWidened",
        "The spec widens an IN_PROGRESS intent's scope or adds one",
        "Since the base, active_intents.yaml gained an IN_PROGRESS intent, an owned_scope "
        "glob, or lost an exclusion. The spec is the human's contract: approve this "
        "content with `intent-ls approve scope-widened .orchestration/active_intents.yaml`, "
        "or revert the change.",
    ),
    Rule(
        DONE_WITHOUT_CHANGE,
        "DoneWithoutChange",
        "An imported task or intent is marked done, but the ledger records no change in it",
        "Optional (--enable done-without-change). A task ticked done in a spec-kit, OpenSpec "
        "or Kiro task list (an intent imported with `intent-ls import`) names files no "
        "recorded save changed, or a COMPLETED intent owns no file a recorded save "
        "changed. Make the change under the intent, or untick the task.",
    ),
)
RULES_BY_ID = {rule.id: rule for rule in RULES}


@attrs.frozen
class Finding:
    """One violation at ``path`` lines ``start_line..end_line`` (1-based, inclusive;
    workspace-relative POSIX path). ``record_id`` names the ledger record involved."""

    rule: str
    path: str
    start_line: int
    end_line: int
    message: str
    record_id: str | None = None
    owners: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "message": self.message,
            "record_id": self.record_id,
            "owners": list(self.owners),
        }
