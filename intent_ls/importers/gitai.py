"""``intent-ls import git-ai``: the AI authorship git-ai kept in ``refs/notes/ai`` as
ledger records, so that history written before intent-ls shows in blame and ``check``.

One record per (commit, file, AI attestation key) of each note: an Agent Trace 0.1.0
mutation record whose ``tool`` is ``git-ai`` (the tool that traced it), whose contributor
is ``ai`` with the session's model, whose ``vcs.revision`` is the commit, whose ranges are
the attested lines with their content hashes as the commit has the file, and whose
``intent_id`` is null: AI-authored, unattributed to an intent. Blame and ``check`` find
lines by content hash, so the records cover those lines wherever they are now, as any
record does. The record id is derived from (commit, path, key): a re-run appends nothing.
Known-human (``h_``) attestations are not AI work and are left out; notes that
``intent-ls export --git-ai-notes`` wrote (agent tool ``intent-ls``) come from the ledger
already and are skipped.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from intent_ls.common.gitai_notes import OWN_TOOL, AuthorshipLog, Entry, NoteError, parse
from intent_ls.common.gitai_repo import git, notes, read_text
from intent_ls.common.hashing import content_hash
from intent_ls.ledger.records import METADATA_KEY, SPEC_VERSION

#: The namespace of imported records' ids (uuid5 of commit, path and key).
_NAMESPACE = uuid.UUID("5b0f2c1e-9d7a-4e63-8a51-2f6c0d9e7a14")


@attrs.frozen
class NotesImport:
    #: New records, ready for :meth:`~intent_ls.ledger.store.Ledger.append`.
    records: tuple[dict[str, Any], ...]
    #: Records an earlier import appended already.
    known: int
    #: ``commit: reason`` for each note that could not be read.
    unreadable: tuple[str, ...]


def plan_notes_import(root: Path, existing_ids: set[str]) -> NotesImport:
    """The records the repository's git-ai notes give that the ledger lacks."""
    prefix = git(root, "rev-parse", "--show-prefix").decode().strip()
    fresh: list[dict[str, Any]] = []
    known = 0
    unreadable: list[str] = []
    for commit, blob in sorted(notes(root).items()):
        text = read_text(root, blob)
        try:
            log = parse(text if text is not None else "")
        except NoteError as exc:
            unreadable.append(f"{commit}: {exc}")
            continue
        for record in _records(root, commit, log, prefix):
            if record["id"] in existing_ids:
                known += 1
            else:
                fresh.append(record)
    return NotesImport(tuple(fresh), known, tuple(unreadable))


def _records(root: Path, commit: str, log: AuthorshipLog, prefix: str) -> list[dict[str, Any]]:
    when: str | None = None
    out: list[dict[str, Any]] = []
    for attested in log.files:
        if not attested.path.startswith(prefix):
            continue
        entries = [(e, a) for e in attested.entries if (a := _foreign_agent(log, e)) is not None]
        text = read_text(root, f"{commit}:{attested.path}") if entries else None
        if text is None:
            continue
        lines = text.splitlines()
        when = when or _commit_time(root, commit)
        rel = attested.path.removeprefix(prefix)
        for entry, agent in entries:
            ranges = _ranges(entry, lines)
            if ranges:
                out.append(_record(commit, when, rel, entry.key, agent, ranges, log.metadata))
    return out


def _foreign_agent(log: AuthorshipLog, entry: Entry) -> dict[str, Any] | None:
    """The AI agent behind ``entry``, unless it is a human or intent-ls itself."""
    agent = log.agent(entry.key)
    if agent is None:
        return None
    agent_id = agent.get("agent_id") if isinstance(agent.get("agent_id"), dict) else {}
    return None if agent_id.get("tool") == OWN_TOOL else agent


def _ranges(entry: Entry, lines: list[str]) -> list[dict[str, Any]]:
    """The entry's ranges with their content hashes; a range past the file's end (a note
    out of step with its commit) is left out."""
    return [
        {"content_hash": content_hash(lines[start - 1 : end]), "end_line": end, "start_line": start}
        for start, end in entry.ranges
        if 1 <= start <= end <= len(lines)
    ]


def _commit_time(root: Path, commit: str) -> str:
    seconds = int(git(root, "show", "-s", "--format=%ct", commit).decode().strip())
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _record(
    commit: str,
    when: str,
    path: str,
    key: str,
    agent: dict[str, Any],
    ranges: list[dict[str, Any]],
    metadata: dict[str, Any],
) -> dict[str, Any]:
    agent_id = agent.get("agent_id") if isinstance(agent.get("agent_id"), dict) else {}
    contributor: dict[str, Any] = {"type": "ai"}
    if isinstance(agent_id.get("model"), str) and agent_id["model"]:
        contributor["model_id"] = agent_id["model"]
    return {
        "version": SPEC_VERSION,
        "id": str(uuid.uuid5(_NAMESPACE, f"{commit}\0{path}\0{key}")),
        "timestamp": when,
        "tool": {"name": "git-ai", "version": str(metadata.get("git_ai_version") or "unknown")},
        "vcs": {"type": "git", "revision": commit},
        "files": [
            {"path": path, "conversations": [{"contributor": contributor, "ranges": ranges}]}
        ],
        "metadata": {
            METADATA_KEY: {
                "kind": "mutation",
                "intent_id": None,
                "session_id": key,
                "mutation_class": None,
                "ast_nodes": [],
                "verdicts": [],
                "approvals": [],
                "deleted_lines": 0,
            }
        },
    }
