"""The git plumbing both directions of git-ai notes need: list, read and write notes
under ``refs/notes/ai``, read a file as a commit has it. Only object-database and ref
commands: the working tree and the index are never touched."""

from __future__ import annotations

import subprocess
from pathlib import Path

from intent_ls.common.gitai_notes import NOTES_REF


class GitError(RuntimeError):
    """A git command failed; the message is git's."""


def git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """``git -C root ARGS`` (paths unquoted), its stdout; :class:`GitError` on failure."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "-c", "core.quotePath=false", *args],
            input=stdin,
            capture_output=True,
            check=False,
        )
    except OSError as exc:
        raise GitError(f"cannot run git: {exc}") from None
    if done.returncode != 0:
        raise GitError(done.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    return done.stdout


def notes(root: Path) -> dict[str, str]:
    """Commit id → note blob id of every note under ``refs/notes/ai`` (none yet: empty)."""
    try:
        git(root, "rev-parse", "--verify", "--quiet", NOTES_REF)
    except GitError:
        return {}
    out: dict[str, str] = {}
    for line in git(root, "notes", f"--ref={NOTES_REF}", "list").decode().splitlines():
        blob, _, commit = line.partition(" ")
        out[commit] = blob
    return out


def read_text(root: Path, spec: str) -> str | None:
    """The object ``spec`` (a blob id, ``COMMIT:path``) as text; None when it does not
    exist or is not UTF-8."""
    try:
        return git(root, "cat-file", "blob", spec).decode("utf-8")
    except (GitError, UnicodeDecodeError):
        return None


def write_note(root: Path, commit: str, text: str) -> None:
    """Attach ``text`` to ``commit`` byte for byte (``git notes add`` would reformat it),
    replacing a note already there."""
    blob = git(root, "hash-object", "-w", "--stdin", stdin=text.encode("utf-8")).decode().strip()
    git(root, "notes", f"--ref={NOTES_REF}", "add", "-f", "-C", blob, commit)
