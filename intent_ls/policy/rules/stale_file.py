"""``stale-file``: a write would overwrite disk content its writer has not seen
(optimistic locking; the decision table is :mod:`intent_ls.policy.stale`).

Warning severity for editors (the human sees the conflict and decides after the save:
"Keep my version" approves it, keyed on the disk content it overwrites), but blocking
for an agent: it must re-read the file before writing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

from intent_ls.policy.rules.rule import (
    Anchor,
    Approvable,
    Approvals,
    Door,
    Fixes,
    Rule,
    Subject,
    Verdict,
    Words,
    refusal,
)
from intent_ls.spec.model import Severity

if TYPE_CHECKING:
    from intent_ls.policy.approvals import Approval
    from intent_ls.policy.stale import DiskState, StaleFile

CODE = "stale-file"


def stale_verdict(stale: StaleFile) -> Verdict:
    """A stale finding as a verdict, with the approval that keeps the buffer."""
    from intent_ls.policy.approvals import approval_request

    details = stale.to_json()
    details["approval"] = approval_request(
        CODE, stale.path, 1, stale.buffer_lines, stale.approval_hash
    )
    return RULE.verdict(stale.message, details, finding=stale)


def judge(subject: Subject) -> Iterator[Verdict]:
    """A change that carries what its door read of the disk: stale or not."""
    from intent_ls.policy.change import Change

    change = subject.change
    if not isinstance(change, Change) or change.disk is None:
        return
    from intent_ls.policy.stale import check_stale

    stale = check_stale(subject.rel, change.disk, change.new_text)
    if stale is not None:
        yield stale_verdict(stale)


class SaveCheck(NamedTuple):
    """The willSave re-check: whether to ask the user before writing, and what the
    save's trace record must carry (the finding, approved or not, and its approval)."""

    stale: StaleFile | None
    approval: Approval | None = None

    @property
    def needs_confirmation(self) -> bool:
        return self.stale is not None and self.approval is None


def check_save(
    rel: str, disk: DiskState, buffer_text: str, approvals: Approvals | None = None
) -> SaveCheck:
    """The stale decision for a disk hash read just before the write (watched-file
    events can lag or be missing, e.g. another server process wrote the file a moment
    ago); a "Keep my version" approval for the current disk content lets the save
    through without asking."""
    from intent_ls.policy.stale import check_stale

    stale = check_stale(rel, disk, buffer_text)
    if stale is None or approvals is None:
        return SaveCheck(stale)
    return SaveCheck(stale, RULE.live_approval(rel, stale.approval_hash, approvals))


def _tell(rule: Rule, verdicts: Sequence[Verdict], words: Words) -> str:
    message = verdicts[0].message.replace("since you read it", "since this session read it")
    return refusal(
        rule.code,
        message + ".",
        f"read {words.rel} again and redo the change on its current content.",
    )


RULE = Rule(
    CODE,
    "the file changed on disk since the writer read it",
    Severity.WARNING,
    order=30,
    gates=True,
    approval=Approvable.NAMED,
    approvers=frozenset({Door.EDITOR, Door.TERMINAL}),
    blocks_editor=False,
    reads_disk=True,
    judge=judge,
    anchor=Anchor.OVERWRITTEN,
    noun="stale-file warning",
    fixes=Fixes.RELOAD_OR_KEEP,
    quick_fix="Keep my version",
    tell_model=_tell,
)
