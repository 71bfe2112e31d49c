"""Approvals: the one answer to "is this live verdict approved?", and the key an approval
is recorded under.

Every door asks here: the editor's live diagnostics, a save, the agent hooks and
``intent-ls record``. The rule (:func:`approval_for`):

- A verdict that names the content it is about (``details.approval.content_hash``: the
  code a destructive edit removes, the disk content a stale write overwrites) is approved
  only by an approval of the same code, for the same path, keyed on exactly that content.
  A further change to that content needs a new approval.
- A ``destructive-edit`` that names no content (deleting or renaming a file nobody read)
  is approved by any ``destructive-edit`` approval of that path: nothing narrower can be
  keyed, and the approval said "this file may go".
- Scope verdicts (``no-active-intent``, ``out-of-scope``) are never approved before the
  write: they are resolved by selecting an intent that owns the file. An out-of-scope
  change is approved after it was saved, keyed on its lines; whether such a recorded
  verdict is still open is :mod:`intent_ls.ledger.attribution`'s question.

Before this module the editor's live diagnostics called a keyless destructive verdict
never approved while the save path approved it; both now follow the rule above.

Approval keys (:func:`approval_request`, :func:`whole_file_request`) are built here only,
so the key a verdict asks for, the key ``intent-ls approve`` records and the key the
hooks' permission prompt records are the same dictionary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import attrs

from intent_ls.common.hashing import text_hash
from intent_ls.policy.verdicts import APPROVABLE, DESTRUCTIVE_EDIT

ContributorType = Literal["human", "ai", "mixed", "unknown"]


@attrs.frozen
class Contributor:
    """Who made a change or gave an approval, as Agent Trace names it."""

    type: ContributorType = "unknown"
    model_id: str | None = None

    def to_json(self) -> dict[str, str]:
        out = {"type": self.type}
        if self.model_id:
            out["model_id"] = self.model_id
        return out


@attrs.frozen
class Approval:
    """A human's approval of one verdict for one range (from the ``intent.approve`` action)."""

    verdict_code: str
    path: str
    start_line: int
    end_line: int
    content_hash: str
    approver: Contributor = Contributor("human")
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = approval_request(
            self.verdict_code, self.path, self.start_line, self.end_line, self.content_hash
        )
        out["approver"] = self.approver.to_json()
        if self.reason:
            out["reason"] = self.reason
        return out


def approval_request(code: str, path: str, start: int, end: int, digest: str) -> dict[str, Any]:
    """The approval that accepts a verdict (``details.approval``; docs/ledger.md)."""
    return {
        "verdict_code": code,
        "path": path,
        "start_line": start,
        "end_line": end,
        "content_hash": digest,
    }


def whole_file_request(code: str, path: str, text: str | None) -> dict[str, Any]:
    """The approval of a verdict about a whole file (a delete, ``intent-ls approve CODE
    PATH`` without ``--hash``): all its lines, keyed on its content (None: no file)."""
    content = text or ""
    return approval_request(code, path, 1, max(1, len(content.splitlines())), text_hash(content))


def approval_key(verdict: Any) -> str | None:
    """The content hash an approval of ``verdict`` (anything with ``details``, or the
    details mapping itself) is keyed on: the ``details.approval.content_hash`` that the
    policy put there."""
    details = getattr(verdict, "details", verdict)
    wanted = details.get("approval") if isinstance(details, Mapping) else None
    digest = wanted.get("content_hash") if isinstance(wanted, Mapping) else None
    return digest if isinstance(digest, str) else None


class ApprovalSet:
    """Approvals indexed by what they approve: (verdict code, path, content hash)."""

    def __init__(self, approvals: Iterable[Approval] = ()) -> None:
        self._by_key: dict[tuple[str, str, str], Approval] = {}
        self._by_path: dict[tuple[str, str], Approval] = {}
        for approval in approvals:
            self._by_key[approval.verdict_code, approval.path, approval.content_hash] = approval
            self._by_path[approval.verdict_code, approval.path] = approval

    @classmethod
    def of(cls, approvals: ApprovalSet | Iterable[Approval]) -> ApprovalSet:
        return approvals if isinstance(approvals, ApprovalSet) else cls(approvals)

    def find(self, code: str, path: str, content_hash: str | None) -> Approval | None:
        """The approval covering it; with no hash (content unknown), any for the path."""
        if content_hash is None:
            return self._by_path.get((code, path))
        return self._by_key.get((code, path, content_hash))


def approval_for(code: str, path: str, key: str | None, approvals: ApprovalSet) -> Approval | None:
    """The approval that lets a live verdict of ``code`` about ``path`` through, by the
    rule in the module doc; ``key`` is the content hash the verdict names
    (:func:`approval_key`), None when it names none."""
    if code not in APPROVABLE or (key is None and code != DESTRUCTIVE_EDIT):
        return None
    return approvals.find(code, path, key)


def verdict_approval(verdict: Any, rel: str, approvals: ApprovalSet) -> Approval | None:
    """:func:`approval_for` a live verdict (code + details; ``rel`` when its details name
    no path)."""
    path = str(verdict.details.get("path", rel))
    return approval_for(verdict.code, path, approval_key(verdict), approvals)
