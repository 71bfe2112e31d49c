"""Symlinks are changes of their own in ``intent-ls check``.

The ledger records text saves, never a symlink, so no record can cover one. A symlink
matters twice: replacing governed ``src/app.py`` with a link puts whatever it points to
(say new code under the never-governed ``.orchestration/``) where governed code was, and a
link at a new path can import code from outside the repository. So a symlink is a finding
(``symlink-change``) when it replaced a governed regular file, or when it points anywhere
but to a governed path inside the workspace (whose own content the coverage rule checks).
Links inside the sidecar or at ignored paths govern nothing and are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable

from intent_ls.check.findings import SYMLINK_CHANGE, Finding
from intent_ls.check.git import FileChange
from intent_ls.workspace.discover import PathKind, Workspace


def is_link_change(change: FileChange) -> bool:
    return change.new_link is not None


def symlink_findings(ws: Workspace, changes: Iterable[FileChange]) -> list[Finding]:
    findings = []
    for change in changes:
        if change.new_link is None:
            continue
        here = ws.classify_rel(change.path)
        if here.kind in (PathKind.SIDECAR, PathKind.IGNORED):
            continue
        problem = _problem(ws, change, here.governed)
        if problem is not None:
            owners = tuple(i.id for i in ws.scope().owners(change.path))
            findings.append(Finding(SYMLINK_CHANGE, change.path, 1, 1, problem, owners=owners))
    return findings


def _problem(ws: Workspace, change: FileChange, governed: bool) -> str | None:
    target = repr(change.new_link)
    was_file = change.old_text is not None or (change.binary and change.old_link is None)
    if governed and was_file:
        return (
            f"governed file {change.path} was replaced by a symlink to {target}: the ledger "
            "cannot vouch for what a link points to; restore the file"
        )
    resolved = ws.relative(ws.root / change.path)
    if resolved is None:
        return (
            f"symlink to {target} points outside the workspace; code from there is not "
            "governed — copy it in under an intent or remove the link"
        )
    if not (ws.root / resolved).exists():  # dangling, or a loop
        return f"symlink to {target} points at nothing (yet): no record can vouch for it"
    info = ws.classify_rel(resolved)
    if not info.governed:
        return (
            f"symlink to {target} points to {resolved}, which {info.reason}; only a link to "
            "governed code is covered by that code's own records"
        )
    return None
