"""``intent-ls export --git-ai-notes``: the ledger's AI attributions as git-ai notes.

For each commit of ``HEAD``'s history (merges aside), the lines it added that an AI
record of the ledger wrote (found by content hash in the file as the commit has it, the
newest record winning) become that commit's authorship log under ``refs/notes/ai``, in
git-ai's format (:mod:`intent_ls.common.gitai_notes`). Each (session, intent) is one
git-ai session: agent tool ``intent-ls``, the record's session and model, and the intent
in ``custom_attributes`` (``intent_ls.intent_id``, ``intent_ls.intent_name``), which
git-ai's parser keeps and its tools show; each record is one trace of it. Keys are
derived from ids, so a re-run writes the same bytes and changes nothing. A note git-ai
wrote itself is never replaced. Records imported from git-ai (tool ``git-ai``) are not
written back.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs

from intent_ls.common.gitai_notes import (
    OWN_TOOL,
    SCHEMA_VERSION,
    NoteError,
    parse,
    render,
)
from intent_ls.common.gitai_repo import GitError, git, notes, read_text, write_note
from intent_ls.ledger.attribution import carried_ranges
from intent_ls.ledger.records import intent_meta

INTENT_ATTR = "intent_ls.intent_id"
NAME_ATTR = "intent_ls.intent_name"
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


@attrs.frozen
class NotesExport:
    written: int
    unchanged: int
    #: Commits whose note git-ai wrote: left as they are.
    kept: tuple[str, ...]


def export_notes(
    root: Path, records: Iterable[dict[str, Any]], intent_name: Callable[[str], str | None]
) -> NotesExport:
    by_path = _ai_records(records)
    try:
        commits = git(root, "rev-list", "--no-merges", "HEAD").decode().split()
    except GitError:
        commits = []
    prefix = git(root, "rev-parse", "--show-prefix").decode().strip()
    existing = notes(root)
    written = unchanged = 0
    kept: list[str] = []
    for commit in reversed(commits):
        text = _note_for(root, commit, prefix, by_path, intent_name)
        if text is None:
            continue
        old = read_text(root, existing[commit]) if commit in existing else None
        if old == text:
            unchanged += 1
        elif old is not None and not _ours(old):
            kept.append(commit)
        else:
            write_note(root, commit, text)
            written += 1
    return NotesExport(written, unchanged, tuple(kept))


def _ai_records(records: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The AI mutation records intent-ls wrote, by path, oldest first."""
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        tool = record.get("tool") if isinstance(record.get("tool"), dict) else {}
        if tool.get("name") == "git-ai" or intent_meta(record).get("kind") != "mutation":
            continue
        for entry in record.get("files") or ():
            convs = entry.get("conversations") or ()
            if any((c.get("contributor") or {}).get("type") == "ai" for c in convs):
                out[str(entry.get("path"))].append(record)
    return out


def _ours(text: str) -> bool:
    """Whether a note is one intent-ls wrote (every session's agent is intent-ls)."""
    try:
        log = parse(text)
    except NoteError:
        return False
    agents = [*(log.metadata.get("sessions") or {}).values(), *log.metadata["prompts"].values()]
    return bool(agents) and all(
        isinstance(a, dict) and (a.get("agent_id") or {}).get("tool") == OWN_TOOL for a in agents
    )


def _added_lines(root: Path, commit: str) -> dict[str, set[int]]:
    """Repository path → the line numbers ``commit`` added to it (as the commit has it)."""
    out: dict[str, set[int]] = defaultdict(set)
    path: str | None = None
    raw = git(
        root, "show", "--format=", "-U0", "--no-color", "--no-ext-diff", "--no-renames", commit
    )
    for line in raw.decode("utf-8", "replace").splitlines():
        if line.startswith("+++ "):
            # A name with a space ends in a tab (for patch); a quoted one is skipped.
            path = line[6:].removesuffix("\t") if line.startswith("+++ b/") else None
        elif path is not None and (match := _HUNK.match(line)):
            start, count = int(match.group(1)), int(match.group(2) or 1)
            out[path].update(range(start, start + count))
    return out


def _note_for(
    root: Path,
    commit: str,
    prefix: str,
    by_path: dict[str, list[dict[str, Any]]],
    intent_name: Callable[[str], str | None],
) -> str | None:
    files: list[tuple[str, list[tuple[str, list[int]]]]] = []
    sessions: dict[str, dict[str, Any]] = {}
    for repo_path, added in sorted(_added_lines(root, commit).items()):
        rel = repo_path.removeprefix(prefix)
        if not repo_path.startswith(prefix) or rel not in by_path:
            continue
        text = read_text(root, f"{commit}:{repo_path}")
        if text is None:
            continue
        owner: dict[int, dict[str, Any]] = {}
        for found in carried_ranges(by_path[rel], rel, text.splitlines()):
            for line in range(found.span.start, found.span.end + 1):
                if line in added:
                    owner[line] = found.record
        entries: dict[str, list[int]] = defaultdict(list)
        for line, record in sorted(owner.items()):
            key, session, body = _session(record, intent_name)
            sessions[session] = body
            entries[key].append(line)
        if entries:
            files.append((repo_path, sorted(entries.items())))
    if not files:
        return None
    metadata = {
        "schema_version": SCHEMA_VERSION,
        "base_commit_sha": commit,
        "prompts": {},
        "sessions": dict(sorted(sessions.items())),
    }
    return render(files, metadata)


def _hex14(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:14]


def _session(
    record: dict[str, Any], intent_name: Callable[[str], str | None]
) -> tuple[str, str, dict[str, Any]]:
    """(attestation key, session id, session record) of a ledger record."""
    meta = intent_meta(record)
    rid = str(record.get("id"))
    session = str(meta.get("session_id") or rid)
    intent = meta.get("intent_id")
    model = next(
        (
            c["contributor"].get("model_id")
            for f in record.get("files") or ()
            for c in f.get("conversations") or ()
            if isinstance(c.get("contributor"), dict) and c["contributor"].get("model_id")
        ),
        None,
    )
    session_id = "s_" + _hex14(f"{OWN_TOOL}:{session}:{intent or ''}")
    body: dict[str, Any] = {
        "agent_id": {"tool": OWN_TOOL, "id": session, "model": str(model or "unknown")}
    }
    if intent:
        attributes = {INTENT_ATTR: str(intent)}
        name = intent_name(str(intent))
        if name:
            attributes[NAME_ATTR] = name
        body["custom_attributes"] = attributes
    return f"{session_id}::t_{_hex14(rid)}", session_id, body
