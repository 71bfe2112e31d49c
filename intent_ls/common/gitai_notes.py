"""git-ai's authorship log: the note git-ai keeps per commit under ``refs/notes/ai``.

The format is the Git AI Standard v3.0.0 (``specs/git_ai_standard_v3.0.0.md`` of
git-ai-project/git-ai), read here the way its parser reads it
(``src/authorship/authorship_log_serialization.rs``): an attestation section, a line that
is exactly ``---``, then a JSON object. In the attestation section a line starting with
two spaces is ``KEY RANGES`` (``1-4,9,12``), any other non-blank line a file path
(double-quoted when it holds whitespace). ``KEY`` is ``s_<14hex>::t_<14hex>`` (an AI
session, looked up in ``sessions`` by the part before ``::``), ``h_<14hex>`` (a known
human, in ``humans``) or 16 hex digits (a legacy AI session, in ``prompts``). The JSON
must have ``schema_version``, ``base_commit_sha`` and ``prompts``; a session's
``agent_id`` has ``tool``, ``id`` and ``model``; ``custom_attributes`` maps strings to
strings and is where other tools may say more.

Nothing here runs git: :mod:`intent_ls.importers.gitai` reads notes and
:mod:`intent_ls.export.gitai` writes them.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

NOTES_REF = "refs/notes/ai"
SCHEMA_VERSION = "authorship/3.0.0"
#: The agent tool of the sessions intent-ls writes into notes: how a note it wrote is told
#: from one git-ai wrote.
OWN_TOOL = "intent-ls"
_REQUIRED = ("schema_version", "base_commit_sha", "prompts")
_RANGE = re.compile(r"([0-9]+)(?:-([0-9]+))?")


class NoteError(ValueError):
    """A note git-ai's parser would refuse."""


@attrs.frozen
class Entry:
    """One attestation: ``key`` wrote ``ranges`` (inclusive, 1-based) of the file."""

    key: str
    ranges: tuple[tuple[int, int], ...]


@attrs.frozen
class FileAttestation:
    path: str
    entries: tuple[Entry, ...]


@attrs.frozen
class AuthorshipLog:
    files: tuple[FileAttestation, ...]
    metadata: dict[str, Any] = attrs.field(eq=False)

    def agent(self, key: str) -> dict[str, Any] | None:
        """The session or prompt record of an AI key; None for a human or unknown key."""
        if key.startswith("h_"):
            return None
        if key.startswith("s_"):
            found = (self.metadata.get("sessions") or {}).get(key.split("::", 1)[0])
        else:
            found = (self.metadata.get("prompts") or {}).get(key)
        return found if isinstance(found, dict) else None


def parse(text: str) -> AuthorshipLog:
    """The log in ``text``; :class:`NoteError` where git-ai's parser fails."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    try:
        divider = lines.index("---")
    except ValueError:
        raise NoteError("missing divider '---' in authorship log") from None
    files = _attestations(lines[:divider])
    try:
        metadata = json.loads("\n".join(lines[divider + 1 :]))
    except json.JSONDecodeError as exc:
        raise NoteError(f"metadata is not JSON: {exc}") from None
    if not isinstance(metadata, dict):
        raise NoteError("metadata is not a JSON object")
    missing = [f for f in _REQUIRED if f not in metadata]
    if missing:
        raise NoteError(f"metadata lacks {', '.join(missing)}")
    if not isinstance(metadata["prompts"], dict):
        raise NoteError("metadata 'prompts' is not an object")
    return AuthorshipLog(files, metadata)


def _attestations(lines: list[str]) -> tuple[FileAttestation, ...]:
    out: list[FileAttestation] = []
    path: str | None = None
    entries: list[Entry] = []
    for raw in lines:
        line = raw.rstrip()
        if not line:
            continue
        if line.startswith("  "):
            key, space, ranges = line[2:].partition(" ")
            if not space:
                raise NoteError(f"invalid attestation entry format: {line[2:]}")
            if path is None:
                raise NoteError("attestation entry found without a file path")
            entries.append(Entry(key, parse_ranges(ranges)))
            continue
        if path is not None and entries:
            out.append(FileAttestation(path, tuple(entries)))
        quoted = len(line) > 1 and line.startswith('"') and line.endswith('"')
        path, entries = (line[1:-1] if quoted else line), []
    if path is not None and entries:
        out.append(FileAttestation(path, tuple(entries)))
    return tuple(out)


def parse_ranges(text: str) -> tuple[tuple[int, int], ...]:
    """``1,2,19-222`` as inclusive pairs; empty parts are skipped, as git-ai does."""
    out: list[tuple[int, int]] = []
    for part in text.split(","):
        if not part:
            continue
        match = _RANGE.fullmatch(part)
        if match is None:
            raise NoteError(f"invalid line range: {part!r}")
        start = int(match.group(1))
        out.append((start, int(match.group(2) or start)))
    return tuple(out)


def format_ranges(lines: list[int]) -> str:
    """Sorted line numbers as git-ai writes them: runs as ``a-b``, single lines alone."""
    runs: list[list[int]] = []
    for line in sorted(set(lines)):
        if runs and line == runs[-1][1] + 1:
            runs[-1][1] = line
        else:
            runs.append([line, line])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def render(files: list[tuple[str, list[tuple[str, list[int]]]]], metadata: dict[str, Any]) -> str:
    """A note: per file (in the order given) its ``(key, lines)`` entries, the divider,
    the metadata as pretty JSON (two-space indent, as serde writes it)."""
    out: list[str] = []
    for path, entries in files:
        out.append(f'"{path}"' if any(c in path for c in " \t\n") else path)
        out += [f"  {key} {format_ranges(lines)}" for key, lines in entries if lines]
    out.append("---")
    out.append(json.dumps(metadata, indent=2, ensure_ascii=False))
    return "\n".join(out) + "\n"
