"""The terminal's front door: record a change made outside any editor or agent, approve a
verdict, with the same workflow and ledger as a save.

``record``: a formatter or a generator rewrote files; their new content is judged and
recorded exactly as a save would be (verdicts included). The old side is the content at
git ``HEAD`` (the ledger keeps hashes, not texts), or nothing for a new file; a file
whose content the ledger already ends with is skipped.

``approve``: a human accepts a pending verdict. The approval is keyed like the editor's:
(verdict code, path, content hash); without ``--hash`` the file's current content hash
is used: the whole-file key, which closes the verdicts of the record that saved that
content in the editor and in ``intent-ls check`` alike
(:func:`~intent_ls.policy.approvals.recorded_approval`). A shell
command the agent hooks held (``destructive-command``, ``unanalysable-command``) is
approved by its exact text.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from intent_ls.common.hashing import text_hash
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.policy.approvals import COMMAND_PATH, Approval, Contributor, whole_file_request
from intent_ls.policy.rules import TERMINAL_APPROVABLE, rule_of
from intent_ls.policy.rules.rule import Approvable


class TerminalError(Exception):
    """A user-facing refusal (bad path, unknown intent, unknown code)."""


@attrs.frozen
class Recorded:
    rel: str
    #: "recorded", "unchanged" (the ledger already ends with this content), "ungoverned".
    status: str
    verdicts: tuple[str, ...] = ()
    open: tuple[str, ...] = ()


def _relative(root: Path, path: Path) -> str:
    """Workspace-relative POSIX form of ``path`` (absolute, or relative to the root)."""
    full = (path if path.is_absolute() else root / path).resolve()
    try:
        return full.relative_to(root).as_posix()
    except ValueError:
        raise TerminalError(f"{path} is outside the workspace {root}") from None


def _head_text(root: Path, rel: str) -> str:
    from intent_ls.check.git import GitError, run_git

    try:
        return run_git(root, ["show", f"HEAD:./{rel}"]).decode("utf-8-sig", "replace")
    except GitError:
        return ""


def _last_after_hash(root: Path, rel: str) -> str | None:
    from intent_ls.ledger.lookup import path_records
    from intent_ls.ledger.records import intent_meta

    for record in path_records(root, rel, 20):
        meta = intent_meta(record)
        if meta.get("kind") == "mutation":
            found = meta.get("after_hash")
            return found if isinstance(found, str) else None
    return None


def record_paths(
    root: Path, paths: list[Path], intent_id: str | None, contributor: Contributor
) -> list[Recorded]:
    from intent_ls import workflow
    from intent_ls.policy.session import SelectionRefused, Session
    from intent_ls.scope.index import is_sidecar
    from intent_ls.workspace.discover import Workspace

    ws = Workspace(root)
    result = ws.spec_result()
    if result.spec is None or result.has_errors:
        raise TerminalError(
            "the intent spec has errors (run `intent-ls validate`); nothing was recorded"
        )
    session = Session()
    if intent_id is not None:
        try:
            session.select(result.spec, intent_id)
        except SelectionRefused as exc:
            raise TerminalError(str(exc)) from None
    scope = ws.scope()
    ledger = Ledger(ledger_path(ws.root))
    out: list[Recorded] = []
    for path in paths:
        rel = _relative(ws.root, path)
        full = ws.root / rel
        if full.is_dir():
            raise TerminalError(f"{rel} is a directory: name the files to record")
        if is_sidecar(rel) or scope.is_ignored(rel):
            out.append(Recorded(rel, "ungoverned"))
            continue
        try:
            new = full.read_bytes().decode("utf-8-sig", "replace")
        except FileNotFoundError:
            new = ""
        if _last_after_hash(ws.root, rel) == text_hash(new):
            out.append(Recorded(rel, "unchanged"))
            continue
        old = _head_text(ws.root, rel)
        built = workflow.record_write(
            ledger, ws.root, rel, old, new, session=session, scope=scope, contributor=contributor
        )
        decision = built.decision
        status = "recorded" if built.record is not None else "unchanged"
        out.append(
            Recorded(
                rel,
                status,
                tuple(v.code for v in decision.verdicts),
                tuple(f"{v.code}: {v.message}" for v in decision.blocking()),
            )
        )
    return out


def approve(
    root: Path,
    code: str,
    path: str | None,
    *,
    content_hash: str | None = None,
    lines: tuple[int, int] | None = None,
    command: str | None = None,
    reason: str | None = None,
    intent_id: str | None = None,
) -> dict[str, object]:
    """Appends the approval record; returns it sealed."""
    rule = rule_of(code)
    if not rule.terminal_approvable:
        allowed = ", ".join(sorted(TERMINAL_APPROVABLE))
        raise TerminalError(f"{code!r} cannot be approved (approvable: {allowed})")
    root = root.resolve()
    if rule.approval is Approvable.COMMAND:
        if command is None:
            raise TerminalError(f"{code} approves a shell command: pass --command 'COMMAND'")
        rel, digest, span = COMMAND_PATH, text_hash(command), (1, 1)
    else:
        if path is None:
            raise TerminalError(f"{code} approves a change to a file: name its PATH")
        rel = _relative(root, Path(path))
        try:
            text = (root / rel).read_bytes().decode("utf-8-sig", "replace")
        except FileNotFoundError:
            text = ""
        whole = whole_file_request(code, rel, text)
        digest = content_hash or whole["content_hash"]
        span = lines or (whole["start_line"], whole["end_line"])
    from intent_ls import workflow

    approval = Approval(code, rel, span[0], span[1], digest, Contributor("human"), reason)
    return workflow.record_approval(
        Ledger(ledger_path(root)),
        root,
        approval,
        intent_id=intent_id,
        session_id=None,
        verdict_message=command or "",
    )
