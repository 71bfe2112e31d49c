"""``destructive-edit``: a change that destroys something a human must approve —
deleted definitions, mass deletions, emptied files, edits of protected paths, file
deletes and renames (the findings of :mod:`intent_ls.policy.destructive`).

Approved by content: an approval names what goes (its baseline content hash); a delete
or rename of a file nobody read names no content, and any approval of the path covers
it. An agent host that can ask puts it to a human at its permission prompt.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from intent_ls.policy.rules.rule import (
    Anchor,
    Approvable,
    Door,
    Fixes,
    Rule,
    Subject,
    Verdict,
    Words,
)
from intent_ls.spec.model import Severity

if TYPE_CHECKING:
    from intent_ls.policy.destructive import Finding

CODE = "destructive-edit"


def destructive_verdict(finding: Finding) -> Verdict:
    """A classify finding as a verdict: blocking until a human approves it."""
    from intent_ls.policy.approvals import approval_request

    details = finding.to_json()
    span, digest = finding.baseline, finding.content_hash
    if span is not None and digest is not None:
        details["approval"] = approval_request(CODE, finding.path, span.start, span.end, digest)
    return RULE.verdict(finding.message, details, finding=finding)


def judge(subject: Subject) -> Iterator[Verdict]:
    """What a change of the text, or a delete or rename, destroys."""
    from intent_ls.policy.change import Change, FileOperation

    change = subject.change
    if isinstance(change, FileOperation):
        from intent_ls.policy.destructive import classify_file_operation

        yield destructive_verdict(
            classify_file_operation(
                subject.rel, change.new_rel, text=change.text, language=change.language
            )
        )
    elif isinstance(change, Change):
        from intent_ls.policy.destructive import classify_change

        config = subject.config
        for finding in classify_change(
            subject.rel,
            change.old_text,
            change.new_text,
            change.language,
            max_deleted_lines=config.max_deleted_lines,
            protected=config.protected,
            old_syntax=change.old_syntax,
            new_syntax=change.new_syntax,
        ):
            yield destructive_verdict(finding)


def _tell(rule: Rule, verdicts: Sequence[Verdict], words: Words) -> str:
    """Names ``protected-path`` when the change edits a protected file: that is the
    reason the model must understand."""
    from intent_ls.policy.destructive import PROTECTED_EDIT

    kinds = {v.details.get("kind") for v in verdicts}
    code = PROTECTED_EDIT if PROTECTED_EDIT in kinds else rule.code
    approve = "; ".join(words.approve(v) for v in verdicts)
    what = "; ".join(v.message for v in verdicts)
    return (
        f"[intent-ls] {code}: {what}. A human must approve this before it is written: "
        f"{approve} — then retry. If the change was not meant to destroy this, redo it "
        "without the deletion."
    )


def _put_back(rule: Rule, verdicts: Sequence[Verdict], words: Words) -> str:
    approve = "; ".join(words.approve(v) for v in verdicts)
    what = "; ".join(v.message for v in verdicts)
    return (
        f"destructive ({what}): a human must approve it first ({approve}), then run the "
        "command again"
    )


RULE = Rule(
    CODE,
    "the change destroys code, a file or a protected path's content",
    Severity.ERROR,
    order=40,
    gates=True,
    approval=Approvable.NAMED_OR_PATH,
    approvers=frozenset({Door.EDITOR, Door.TERMINAL}),
    asks_agent=True,
    judge=judge,
    anchor=Anchor.FINDING,
    noun="destructive edit",
    fixes=Fixes.RESTORE_OR_APPROVE,
    quick_fix="Approve destructive edit",
    tell_model=_tell,
    tell_put_back=_put_back,
)
