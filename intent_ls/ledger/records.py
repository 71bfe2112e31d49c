"""Builds Agent Trace 0.1.0 records (pure: no file writes, clock and ids injected).

Everything the Agent Trace spec has no field for lives under ``metadata["intent_ls"]``
(see ``docs/ledger.md``). The chain fields ``prev`` and ``digest`` are filled in by
:class:`intent_ls.ledger.store.Ledger` at append time, under its lock, because only the
writer holding the lock knows the previous line.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from intent_ls import __version__
from intent_ls.common.diff import (
    LineSpan,
    changed_spans,
    deleted_line_count,
    diff_lines,
    split_lines,
)
from intent_ls.common.hashing import content_hash, text_hash
from intent_ls.common.safe_io import read_regular
from intent_ls.policy.approvals import Approval, Contributor

if TYPE_CHECKING:
    from datetime import datetime

    from intent_ls.syntax.document import DocumentSyntax
    from intent_ls.syntax.model import AstNode

SPEC_VERSION = "0.1.0"
TOOL_NAME = "intent-ls"
METADATA_KEY = "intent_ls"

RecordKind = Literal["mutation", "approval"]
#: A record's time; datetime is imported only where a record is built (a hook that only
#: judges never needs it).
Clock = Callable[[], "datetime"]
IdFactory = Callable[[], uuid.UUID]


def utc_now() -> datetime:
    from datetime import UTC, datetime

    return datetime.now(UTC)


class RecordedVerdict(NamedTuple):
    """A governance verdict present at save time, as the ledger keeps it.

    The policy module owns the live verdict type; the ledger stores this plain copy so
    a record stays readable when that type evolves.
    """

    code: str
    message: str
    details: Mapping[str, Any] = MappingProxyType({})

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "details": dict(self.details)}


def relative_posix(root: Path, path: Path | str) -> str:
    """Workspace-relative POSIX path; already-relative paths are normalized only."""
    p = Path(path)
    if p.is_absolute():
        p = p.resolve().relative_to(root.resolve())
    return PurePosixPath(*p.parts).as_posix()


def intent_urn(intent_id: str) -> str:
    return f"urn:intent:{intent_id}"


def _timestamp(clock: Clock) -> str:
    from datetime import UTC

    now = clock().astimezone(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond:06d}Z"


#: ``.git`` files are tiny; ``packed-refs`` of a big repository is not.
_MAX_GIT_FILE = 64 * 1024
_MAX_PACKED_REFS = 64 * 1024 * 1024


def _read_git(path: Path, cap: int = _MAX_GIT_FILE) -> str:
    """A file under ``.git``: regular, bounded, never blocking (a hostile agent can
    replace any of them with a FIFO or ``/dev/zero``)."""
    return read_regular(path, cap, follow=True).decode("utf-8", "replace")


def git_revision(root: Path) -> str | None:
    """HEAD's commit id read straight from ``.git`` (no ``git`` subprocess: a save must
    stay within milliseconds). Handles worktrees, detached HEAD and packed refs; returns
    None outside a repository or before the first commit."""
    git = root / ".git"
    try:
        if git.is_file():
            gitdir_line = _read_git(git).strip()
            if not gitdir_line.startswith("gitdir:"):
                return None
            git = (root / gitdir_line.removeprefix("gitdir:").strip()).resolve()
        head = _read_git(git / "HEAD").strip()
    except OSError:
        return None
    if not head.startswith("ref:"):
        return head or None
    ref = head.removeprefix("ref:").strip()
    common = git
    commondir = git / "commondir"
    if commondir.is_file():
        try:
            common = (git / _read_git(commondir).strip()).resolve()
        except OSError:
            return None
    for base in (git, common):
        try:
            return _read_git(base / ref).strip() or None
        except OSError:
            continue
    try:
        packed = _read_git(common / "packed-refs", _MAX_PACKED_REFS)
    except OSError:
        return None
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name == ref:
            return sha
    return None


def _envelope(
    *,
    files: list[dict[str, Any]],
    meta: dict[str, Any],
    revision: str | None,
    clock: Clock,
    new_id: IdFactory,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "version": SPEC_VERSION,
        "id": str(new_id()),
        "timestamp": _timestamp(clock),
        "tool": {"name": TOOL_NAME, "version": __version__},
    }
    if revision:
        record["vcs"] = {"type": "git", "revision": revision}
    record["files"] = files
    record["metadata"] = {METADATA_KEY: meta}
    return record


def _conversation(
    contributor: Contributor, ranges: list[dict[str, Any]], intent_id: str | None
) -> dict[str, Any]:
    conv: dict[str, Any] = {"contributor": contributor.to_json(), "ranges": ranges}
    if intent_id:
        conv["related"] = [{"type": "specification", "url": intent_urn(intent_id)}]
    return conv


def _deletion_anchors(hunks: Iterable[Any], line_count: int) -> list[LineSpan]:
    """Pure deletions leave no changed line; the line where they happened still tells
    which definition lost code."""
    anchors = []
    for hunk in hunks:
        if hunk.inserted == 0 and line_count:
            line = min(max(hunk.new_start, 1), line_count)
            anchors.append(LineSpan(line, line))
    return anchors


def build_mutation_record(
    root: Path,
    path: Path | str,
    old_text: str,
    new_text: str,
    *,
    intent_id: str | None,
    session_id: str | None,
    contributor: Contributor,
    verdicts: Sequence[RecordedVerdict] = (),
    approvals: Sequence[Approval] = (),
    syntax: DocumentSyntax | None = None,
    old_syntax: DocumentSyntax | None = None,
    language: str | None = None,
    clock: Clock = utc_now,
    new_id: IdFactory = uuid.uuid4,
    revision: str | Literal[False] | None = False,
) -> dict[str, Any] | None:
    """The record for saving ``new_text`` over ``old_text`` (the last recorded content).

    ``syntax`` is the open document's incrementally maintained tree and ``old_syntax`` a
    snapshot of it at the last record (:meth:`DocumentSyntax.copy`), so a save never
    reparses; without them ``language`` (a languageId or None to guess from the
    extension) selects a one-shot parse. ``revision=False`` reads HEAD from ``root``.
    Returns None when nothing changed.
    """
    from intent_ls.ledger import mutation
    from intent_ls.syntax.languages import language_for

    if old_text == new_text:
        return None
    rel = relative_posix(root, path)
    old_lines, new_lines = split_lines(old_text), split_lines(new_text)
    hunks = diff_lines(old_lines, new_lines)
    spans = changed_spans(hunks)
    ranges = [
        {
            "start_line": s.start,
            "end_line": s.end,
            "content_hash": content_hash(new_lines[s.start - 1 : s.end]),
        }
        for s in spans
    ]
    lang = syntax.language if syntax is not None else language_for(language=language, path=rel)
    nodes: list[dict[str, Any]] = []
    if lang is not None:
        from intent_ls.syntax.document import DocumentSyntax

        doc = syntax if syntax is not None else DocumentSyntax.parse(new_text, lang)
        for node in doc.definitions_for_spans([*spans, *_deletion_anchors(hunks, len(new_lines))]):
            nodes.append({"path": rel, **node.to_json()})
    mclass = mutation.classify(
        old_text, new_text, lang, old_syntax=old_syntax, new_syntax=syntax, hunks=hunks
    )
    meta = {
        "kind": "mutation",
        "intent_id": intent_id,
        "session_id": session_id,
        "mutation_class": mclass.value,
        "ast_nodes": nodes,
        "verdicts": [v.to_json() for v in verdicts],
        "approvals": [a.to_json() for a in approvals],
        "deleted_lines": deleted_line_count(hunks),
        "before_hash": text_hash(old_text),
        "after_hash": text_hash(new_text),
    }
    return _envelope(
        files=[{"path": rel, "conversations": [_conversation(contributor, ranges, intent_id)]}],
        meta=meta,
        revision=git_revision(root) if revision is False else revision,
        clock=clock,
        new_id=new_id,
    )


def build_approval_record(
    root: Path,
    approval: Approval,
    *,
    intent_id: str | None,
    session_id: str | None,
    verdict_message: str = "",
    nodes: Sequence[AstNode] = (),
    clock: Clock = utc_now,
    new_id: IdFactory = uuid.uuid4,
    revision: str | Literal[False] | None = False,
) -> dict[str, Any]:
    """A record of its own for an approval: approvals happen between saves (a code action),
    and a later save may never come, yet the approval must be on the ledger. ``nodes`` are
    the definitions the approved verdict affects (e.g. the deleted function, with its
    baseline lines and content hash), kept under ``ast_nodes``."""
    rng = {
        "start_line": approval.start_line,
        "end_line": approval.end_line,
        "content_hash": approval.content_hash,
    }
    meta = {
        "kind": "approval",
        "intent_id": intent_id,
        "session_id": session_id,
        "mutation_class": None,
        "ast_nodes": [{"path": approval.path, **node.to_json()} for node in nodes],
        "verdicts": [RecordedVerdict(approval.verdict_code, verdict_message, {}).to_json()],
        "approvals": [approval.to_json()],
        "deleted_lines": 0,
    }
    return _envelope(
        files=[
            {
                "path": approval.path,
                "conversations": [_conversation(approval.approver, [rng], intent_id)],
            }
        ],
        meta=meta,
        revision=git_revision(root) if revision is False else revision,
        clock=clock,
        new_id=new_id,
    )


def intent_meta(record: dict[str, Any]) -> dict[str, Any]:
    """The intent-ls metadata of a record, empty for a foreign record."""
    meta = record.get("metadata")
    if isinstance(meta, dict):
        inner = meta.get(METADATA_KEY)
        if isinstance(inner, dict):
            return inner
    return {}


def approvals_from_records(records: Iterable[dict[str, Any]]) -> list[Approval]:
    """The approvals recorded in ledger records (their ``approvals`` metadata), in ledger
    order; malformed entries are skipped, since a foreign record must not break policy."""
    out: list[Approval] = []
    for record in records:
        items = intent_meta(record).get("approvals")
        for item in items if isinstance(items, list) else ():
            try:
                approver = item.get("approver") or {}
                out.append(
                    Approval(
                        verdict_code=str(item["verdict_code"]),
                        path=str(item["path"]),
                        start_line=int(item["start_line"]),
                        end_line=int(item["end_line"]),
                        content_hash=str(item["content_hash"]),
                        approver=Contributor(
                            approver.get("type", "unknown"), approver.get("model_id")
                        ),
                        reason=item.get("reason"),
                    )
                )
            except (AttributeError, KeyError, TypeError, ValueError):
                continue
    return out
