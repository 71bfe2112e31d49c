"""What a rule judges: a pending change of a file's text or a file operation, and the
repository's tunables the rules judge it by.

These are plain values with no rule behind them, so the rules
(:mod:`intent_ls.policy.rules`) and every front door can name them without loading a
rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from intent_ls.common.equality import compared_without
from intent_ls.scope.protected import DEFAULT_PROTECTED, ProtectedPaths

if TYPE_CHECKING:
    from intent_ls.policy.stale import DiskState
    from intent_ls.spec.model import Spec
    from intent_ls.syntax.document import DocumentSyntax

#: More net deleted lines than this in one save is a destructive edit, unless the
#: repository's ``policy.maxDeletedLines`` says otherwise (:class:`PolicyConfig`).
DEFAULT_MAX_DELETED_LINES = 20


class PolicyConfig(NamedTuple):
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
        return self._replace(max_deleted_lines=limit, extra_protected=extra)

    @property
    def protected(self) -> ProtectedPaths:
        return ProtectedPaths(self.protected_paths, self.extra_protected)


class Change(NamedTuple):
    """A pending change of one file's text: from its baseline (the text at open or last
    save, or on disk before an agent's write) to the buffer (or the proposed text)."""

    old_text: str
    new_text: str
    #: LSP languageId or our language name; the path's extension otherwise.
    language: str | None = None
    #: What the front door read of the disk, for optimistic locking; None skips it.
    disk: DiskState | None = None
    #: Live trees matching the texts, so nothing is reparsed (see ``classify_change``).
    old_syntax: DocumentSyntax | None = None
    new_syntax: DocumentSyntax | None = None

    __eq__, __ne__, __hash__ = compared_without("old_syntax", "new_syntax")


class FileOperation(NamedTuple):
    """Deleting (``new_rel`` None) or renaming the evaluated path; ``text`` is its
    content when the front door read it, which keys approvals on content."""

    new_rel: str | None = None
    text: str | None = None
    language: str | None = None
