"""The governance rules. Every front door (editor, agent hook, CI gate) asks here.

``evaluate`` is the one entry point: given who is acting (the session), what governs
(spec + compiled scope), what is touched (a workspace-relative path) and, optionally,
how (a :class:`Change` of its text or a :class:`FileOperation`), it returns the verdicts
that apply. No verdicts means the mutation is allowed.

- ``no-active-intent`` / ``out-of-scope``: the session and the spec, path only
  (:mod:`intent_ls.policy.out_of_scope`).
- ``stale-file``: optimistic locking (:mod:`intent_ls.policy.stale`) when the change carries
  what the front door read from disk. Warning severity for editors, but blocking: an
  agent must not write over content it has not seen.
- ``destructive-edit``: one verdict per finding of :mod:`intent_ls.policy.destructive` — deleted
  definitions, mass deletions, emptied files, protected paths, file deletes/renames.

A human approval recorded in the ledger (verdict code + path + the baseline content
hash of what it approved) removes the stale or destructive verdict it matches.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import attrs

from intent_ls.policy.approvals import (
    Approval,
    ApprovalSet,
    approval_request,
    verdict_approval,
)
from intent_ls.policy.out_of_scope import check_scope
from intent_ls.policy.session import Session
from intent_ls.policy.verdicts import (
    DEFAULT_MAX_DELETED_LINES,
    DESTRUCTIVE_EDIT,
    STALE_FILE,
    severity_of,
)
from intent_ls.scope.index import ScopeIndex
from intent_ls.scope.protected import DEFAULT_PROTECTED, ProtectedPaths
from intent_ls.spec.model import Severity, Spec

if TYPE_CHECKING:  # the change rules' modules load when a change is judged: a path alone
    # (an agent's shell command, the editor's keystroke) needs only the scope rule
    from intent_ls.policy.destructive import Finding
    from intent_ls.policy.stale import DiskState, StaleFile
    from intent_ls.syntax.document import DocumentSyntax


@attrs.frozen
class Verdict:
    code: str
    message: str
    owners: tuple[str, ...] = ()
    details: dict[str, Any] = attrs.field(factory=dict, hash=False)
    blocking: bool = True
    #: The typed finding behind a stale or destructive verdict, for front doors that
    #: need more than ``details`` (the anchor to mark, the "Restore" edits).
    finding: Finding | StaleFile | None = attrs.field(default=None, eq=False, repr=False)

    @property
    def severity(self) -> Severity:
        return severity_of(self.code)

    def to_dict(self) -> dict[str, Any]:
        """The machine-readable form agents act on."""
        return {"code": self.code, "message": self.message, "details": dict(self.details)}


@attrs.frozen
class PolicyConfig:
    """The tunable parts of the rules.

    They come from the repository (:meth:`of`, the spec's ``policy:`` section), so the
    editor, the agent hooks and ``intent-ls record`` judge a change by the same numbers
    (and ``check`` reads the verdicts they recorded). A front door may only tighten them
    (:meth:`stricter`): the editor's own settings lower the threshold or protect more
    paths, never the reverse.
    """

    #: More net deleted lines than this in one save is a destructive edit.
    max_deleted_lines: int = DEFAULT_MAX_DELETED_LINES
    #: Gitignore-style globs of files whose every edit needs approval.
    protected_paths: tuple[str, ...] = DEFAULT_PROTECTED
    #: Globs a front door protects on top of ``protected_paths``.
    extra_protected: tuple[str, ...] = ()

    @classmethod
    def of(cls, spec: Spec) -> PolicyConfig:
        """The repository's settings, defaults filled in where it sets none."""
        policy = spec.policy
        return cls(
            DEFAULT_MAX_DELETED_LINES
            if policy.max_deleted_lines is None
            else policy.max_deleted_lines,
            DEFAULT_PROTECTED if policy.protected_paths is None else policy.protected_paths,
        )

    def stricter(
        self, max_deleted_lines: int | None, protected_paths: Iterable[str] | None
    ) -> PolicyConfig:
        """These settings tightened by a front door's own (None: not set)."""
        limit = self.max_deleted_lines
        if max_deleted_lines is not None:
            limit = min(limit, max_deleted_lines)
        extra = (*self.extra_protected, *(protected_paths or ()))
        return attrs.evolve(self, max_deleted_lines=limit, extra_protected=extra)

    @property
    def protected(self) -> ProtectedPaths:
        return ProtectedPaths(self.protected_paths, self.extra_protected)


@attrs.frozen
class Change:
    """A pending change of one file's text: from its baseline (the text at open or last
    save, or on disk before an agent's write) to the buffer (or the proposed text)."""

    old_text: str
    new_text: str
    #: LSP languageId or our language name; the path's extension otherwise.
    language: str | None = None
    #: What the front door read of the disk, for optimistic locking; None skips it.
    disk: DiskState | None = None
    #: Live trees matching the texts, so nothing is reparsed (see ``classify_change``).
    old_syntax: DocumentSyntax | None = attrs.field(default=None, eq=False, repr=False)
    new_syntax: DocumentSyntax | None = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen
class FileOperation:
    """Deleting (``new_rel`` None) or renaming the evaluated path; ``text`` is its
    content when the front door read it, which keys approvals on content."""

    new_rel: str | None = None
    text: str | None = None
    language: str | None = None


def _scope_verdicts(session: Session, scope: ScopeIndex, rel_path: str) -> list[Verdict]:
    """The scope rule's finding as a verdict: blocking until an owning intent is selected."""
    found = check_scope(session, scope, rel_path)
    return (
        [] if found is None else [Verdict(found.code, found.message, found.owners, found.details)]
    )


def destructive_verdict(finding: Finding) -> Verdict:
    """A classify finding as a verdict: blocking until a human approves it."""
    details = finding.to_json()
    span, digest = finding.baseline, finding.content_hash
    if span is not None and digest is not None:
        details["approval"] = approval_request(
            DESTRUCTIVE_EDIT, finding.path, span.start, span.end, digest
        )
    return Verdict(DESTRUCTIVE_EDIT, finding.message, (), details, True, finding)


def stale_verdict(stale: StaleFile) -> Verdict:
    """A stale finding as a verdict: Warning for an editor (the human sees the conflict
    and decides), blocking for an agent (it must re-read before writing)."""
    details = stale.to_json()
    details["approval"] = approval_request(
        STALE_FILE, stale.path, 1, stale.buffer_lines, stale.approval_hash
    )
    return Verdict(STALE_FILE, stale.message, (), details, True, stale)


def evaluate(
    session: Session,
    scope: ScopeIndex,
    rel_path: str,
    change: Change | FileOperation | None = None,
    *,
    config: PolicyConfig | None = None,
    approvals: ApprovalSet | Iterable[Approval] = (),
    path_rules: bool = True,
) -> tuple[Verdict, ...]:
    """Verdicts for mutating ``rel_path`` (a governed, workspace-relative POSIX path).

    Without ``change`` only the path rules apply. Order: scope verdicts (for a rename,
    the target path's too), then ``stale-file``, then ``destructive-edit`` in the
    classifier's order. Verdicts that ``approvals`` cover (the rule is
    :func:`intent_ls.policy.approvals.approval_for`) are left out.
    ``path_rules=False`` leaves the scope verdicts out, for a front door that judged the
    path already (the editor does so at once, and the change later off the loop).
    """
    if scope.is_ignored(rel_path):
        return ()
    approved = ApprovalSet.of(approvals)
    verdicts = _scope_verdicts(session, scope, rel_path) if path_rules else []
    findings: tuple[Finding, ...] = ()
    if isinstance(change, FileOperation):
        if path_rules and change.new_rel is not None and not scope.is_ignored(change.new_rel):
            verdicts.extend(_scope_verdicts(session, scope, change.new_rel))
        from intent_ls.policy.destructive import classify_file_operation

        findings = (
            classify_file_operation(
                rel_path, change.new_rel, text=change.text, language=change.language
            ),
        )
    elif change is not None:
        from intent_ls.policy.destructive import classify_change
        from intent_ls.policy.stale import check_stale

        config = config or PolicyConfig.of(scope.spec)
        if change.disk is not None:
            stale = check_stale(rel_path, change.disk, change.new_text)
            if stale is not None:
                verdicts.append(stale_verdict(stale))
        findings = classify_change(
            rel_path,
            change.old_text,
            change.new_text,
            change.language,
            max_deleted_lines=config.max_deleted_lines,
            protected=config.protected,
            old_syntax=change.old_syntax,
            new_syntax=change.new_syntax,
        )
    verdicts.extend(destructive_verdict(f) for f in findings)
    return tuple(v for v in verdicts if verdict_approval(v, rel_path, approved) is None)
