"""Approvals: the one answer to "is this verdict approved?" — for a write about to
happen (live) and for a verdict a save already recorded — and the key an approval is
recorded under.

An approval names exactly what a human approved: a verdict code, a path and a content
hash. Nothing else (its position in the ledger, the lines it spans, who recorded it)
decides; so an approval recorded before or after the verdict counts alike, and a human
approving one content never approves a different content that came later.

**A live verdict** (the editor's diagnostics, a save, the agent hooks, ``intent-ls
record``; :func:`approval_for`):

- A verdict that names the content it is about (``details.approval.content_hash``: the
  code a destructive edit removes, the disk content a stale write overwrites) is approved
  only by an approval of the same code, for the same path, keyed on exactly that content.
  A further change to that content needs a new approval.
- A ``destructive-edit`` that names no content (deleting or renaming a file nobody read)
  is approved by any ``destructive-edit`` approval of that path: nothing narrower can be
  keyed, and the approval said "this file may go".
- Scope verdicts (``no-active-intent``, ``out-of-scope``) are never approved before the
  write: they are resolved by selecting an intent that owns the file.

**A recorded verdict** (a gated verdict a mutation record carries; the editor's
diagnostics of saved lines and ``intent-ls check`` both ask :func:`recorded_approval`) is
approved by an approval of the same code for the record's path keyed on

- **the whole-file key**: the content the save left (the record's ``after_hash``, what
  ``intent-ls approve CODE PATH`` records without ``--hash``) — the human approved
  everything that save did to the file;
- for ``out-of-scope``, **a range's hash**: it approves those lines only, so a save with
  two ranges needs both (or the whole-file key) before all its lines are approved;
- for ``destructive-edit`` and ``stale-file``, **the key the verdict names** (what was
  destroyed or overwritten, as above) — not the hash of lines the save wrote, which says
  nothing about what went; a keyless ``destructive-edit`` takes any approval of its code
  for the path, as live.

``no-active-intent`` is never approved, live or recorded: it is resolved by an intent
that owns the file. Approvals the record itself lists count like any other, by key.

Before this module the two doors disagreed. The editor accepted only the verdict's own
key (a range's hash, or the named content) and never the whole-file key that
``intent-ls approve`` records and ``check``'s own message suggests; ``check`` accepted any
approval of the code that the record listed, whatever its hash, and any of the record's
range hashes for every verdict of the record (one approved range approved the whole
save, and a ``destructive-edit`` approval keyed on the new lines approved what was
destroyed). Both now follow the rule above.

Each rule says how it is approved (:class:`~intent_ls.policy.rules.rule.Approvable`:
named content, named content else the path, a range, never), and the functions here ask
the verdict's rule; so a new rule chooses its keying in its own file.

Approval keys (:func:`approval_request`, :func:`whole_file_request`) are built here only,
so the key a verdict asks for, the key ``intent-ls approve`` records and the key the
hooks' permission prompt records are the same dictionary.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any, Literal, NamedTuple

from intent_ls.common.hashing import text_hash
from intent_ls.policy.rules import rule_of

ContributorType = Literal["human", "ai", "mixed", "unknown"]
#: The path a shell-command approval is filed under (a command has no file).
COMMAND_PATH = "."


class Contributor(NamedTuple):
    """Who made a change or gave an approval, as Agent Trace names it."""

    type: ContributorType = "unknown"
    model_id: str | None = None

    def to_json(self) -> dict[str, str]:
        out = {"type": self.type}
        if self.model_id:
            out["model_id"] = self.model_id
        return out


class Approval(NamedTuple):
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
        self._by_path: dict[tuple[str, str], list[Approval]] = {}
        for approval in approvals:
            self._by_key[approval.verdict_code, approval.path, approval.content_hash] = approval
            self._by_path.setdefault((approval.verdict_code, approval.path), []).append(approval)

    @classmethod
    def of(cls, approvals: ApprovalSet | Iterable[Approval]) -> ApprovalSet:
        return approvals if isinstance(approvals, ApprovalSet) else cls(approvals)

    def plus(self, approvals: Iterable[Approval]) -> ApprovalSet:
        """These approvals and ``approvals`` (self when there are none)."""
        extra = list(approvals)
        if not extra:
            return self
        out = ApprovalSet(extra)
        out._by_key = {**self._by_key, **out._by_key}
        for key, found in self._by_path.items():
            out._by_path[key] = [*found, *out._by_path.get(key, ())]
        return out

    def find(self, code: str, path: str, content_hash: str | None) -> Approval | None:
        """The approval covering it; with no hash (content unknown), any for the path."""
        if content_hash is None:
            found = self._by_path.get((code, path))
            return found[-1] if found else None
        return self._by_key.get((code, path, content_hash))

    def of_path(self, code: str, path: str) -> list[Approval]:
        """Every approval of ``code`` for ``path``, in the order given."""
        return list(self._by_path.get((code, path), ()))


def approval_for(code: str, path: str, key: str | None, approvals: ApprovalSet) -> Approval | None:
    """The approval that lets a live verdict of ``code`` about ``path`` through, as the
    code's rule keys it (the rule in the module doc); ``key`` is the content hash the
    verdict names (:func:`approval_key`), None when it names none."""
    found: Approval | None = rule_of(code).live_approval(path, key, approvals)
    return found


def verdict_approval(verdict: Any, rel: str, approvals: ApprovalSet) -> Approval | None:
    """:func:`approval_for` a live verdict (code + details; ``rel`` when its details name
    no path)."""
    path = str(verdict.details.get("path", rel))
    return approval_for(verdict.code, path, approval_key(verdict), approvals)


def recorded_approval(
    code: str,
    path: str,
    approvals: ApprovalSet,
    *,
    saved: str | None,
    named: str | None = None,
    lines: str | None = None,
    ranges: Collection[str] = (),
) -> Approval | None:
    """The approval that closes a verdict of ``code`` a save of ``path`` recorded, by the
    rule in the module doc. ``saved`` is the content the save left (its ``after_hash``),
    ``named`` the key the verdict names (:func:`approval_key`). For a scope verdict,
    ``lines`` asks about the lines with that hash only; without it the whole save is
    asked about, whose ``ranges`` (their hashes) must then all be approved."""
    found: Approval | None = rule_of(code).recorded_approval(
        path, approvals, saved=saved, named=named, lines=lines, ranges=ranges
    )
    return found
