"""The git edge of ``intent-ls check``: which files differ between a base revision and the
working tree, with both texts.

Everything goes through a fixed, small number of ``git`` processes whatever the number of
changed files (one ``diff --raw``, one ``ls-files``, one ``cat-file --batch``), and every
path crosses the process boundary NUL-terminated (``-z``), so spaces, quotes, newlines and
non-ASCII names need no unquoting. The line diff itself is computed in Python with
:func:`intent_ls.diff.diff_lines` — the same diff the ledger used when it recorded the
saves, so "changed line" means the same thing on both sides.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

import attrs

#: git's well-known empty tree: the base of a repository with no commit yet.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_ZERO_SHA = "0" * 40
_REGULAR_MODES = ("100644", "100755")
_BINARY_SNIFF = 8000
#: Keep git's output stable whatever the user's configuration says.
_GIT_CONFIG = ("-c", "core.quotePath=false", "-c", "diff.noprefix=false")


class GitError(Exception):
    """git is missing, the directory is not a repository, or a revision does not resolve."""


@attrs.frozen
class FileChange:
    """One changed file. ``old_text``/``new_text`` are None when that side has no regular
    file (added, deleted, or a symlink/submodule there); ``binary`` when a side is not UTF-8
    text. Paths are relative to the directory git was asked about, POSIX style."""

    path: str
    status: str  # A, M, D, R (rename: ``old_path`` is where it came from)
    old_path: str | None
    old_text: str | None
    new_text: str | None
    binary: bool = False


@attrs.frozen
class Base:
    """The resolved base: ``rev`` is a commit id (or the empty tree), ``label`` what to show."""

    rev: str
    label: str


def run_git(cwd: Path, args: Sequence[str], *, input: bytes | None = None) -> bytes:
    try:
        proc = subprocess.run(
            ["git", *_GIT_CONFIG, *args],
            cwd=cwd,
            input=input,
            capture_output=True,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed (or not on PATH)") from exc
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(message[-1] if message else f"git {args[0]} failed")
    return proc.stdout


class Repo:
    """A git working tree seen from ``cwd`` (which may be a subdirectory of it)."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = Path(cwd)
        try:
            out = run_git(self.cwd, ["rev-parse", "--show-toplevel", "--show-prefix"])
        except GitError as exc:
            raise GitError(f"{self.cwd} is not inside a git working tree ({exc})") from exc
        top, _, prefix = out.decode("utf-8", "surrogateescape").partition("\n")
        self.toplevel = Path(top)
        #: ``cwd`` relative to the top level, ending in "/" (or empty at the top).
        self.prefix = prefix.strip("\n")

    def _verify(self, rev: str) -> str | None:
        try:
            out = run_git(
                self.cwd,
                ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
            )
        except GitError:
            return None
        return out.decode().strip() or None

    def resolve_base(self, rev: str | None) -> Base:
        """``rev`` if given (an error if it does not name a commit). Otherwise the merge-base
        of HEAD with ``origin/main`` (then ``origin/master``) when such a remote branch
        exists — what a pull request will be compared against — else HEAD; in a repository
        without commits, the empty tree."""
        if rev is not None:
            sha = self._verify(rev)
            if sha is None:
                raise GitError(f"--base {rev!r} does not name a commit in this repository")
            return Base(sha, rev)
        head = self._verify("HEAD")
        if head is None:
            return Base(EMPTY_TREE, "(no commit yet)")
        for upstream in ("origin/main", "origin/master"):
            if self._verify(f"refs/remotes/{upstream}") is None:
                continue
            try:
                out = run_git(self.cwd, ["merge-base", "HEAD", f"refs/remotes/{upstream}"])
            except GitError:
                continue
            return Base(out.decode().strip(), f"merge-base(HEAD, {upstream})")
        return Base(head, "HEAD")

    def changes(self, base: Base) -> list[FileChange]:
        """Every file that differs between ``base`` and the working tree under ``cwd``:
        tracked changes (renames detected), plus untracked files that are not ignored."""
        raw = run_git(
            self.cwd,
            [
                "diff",
                "--raw",
                "-z",
                "--no-abbrev",
                "-M",
                "--no-ext-diff",
                "--no-textconv",
                "--relative",
                base.rev,
                "--",
            ],
        )
        entries = list(_parse_raw(raw))
        wanted = [e.old_sha for e in entries if e.old_sha is not None]
        blobs = self.read_blobs(wanted)
        out: list[FileChange] = []
        for e in entries:
            old = blobs.get(e.old_sha) if e.old_sha else None
            new = self._read_worktree(e.path) if e.new_regular else None
            if old is None and new is None:
                continue
            out.append(_change(e.path, e.status, e.old_path, old, new))
        untracked = run_git(self.cwd, ["ls-files", "--others", "--exclude-standard", "-z"])
        for name in untracked.split(b"\0"):
            if not name:
                continue
            path = name.decode("utf-8", "surrogateescape")
            new = self._read_worktree(path)
            if new is not None:
                out.append(_change(path, "A", None, None, new))
        out.sort(key=lambda c: c.path)
        return out

    def _read_worktree(self, path: str) -> bytes | None:
        full = self.cwd / path
        if full.is_symlink() or not full.is_file():
            return None
        try:
            return full.read_bytes()
        except OSError:
            return None

    def read_blobs(self, shas: Sequence[str]) -> dict[str, bytes]:
        """Contents of many blobs through one ``cat-file --batch`` process."""
        unique = list(dict.fromkeys(shas))
        if not unique:
            return {}
        out = run_git(
            self.cwd, ["cat-file", "--batch"], input="".join(f"{sha}\n" for sha in unique).encode()
        )
        blobs: dict[str, bytes] = {}
        pos = 0
        for sha in unique:
            eol = out.index(b"\n", pos)
            header = out[pos:eol].split()
            pos = eol + 1
            if len(header) < 3 or header[1] == b"missing":
                continue
            size = int(header[2])
            blobs[sha] = out[pos : pos + size]
            pos += size + 1
        return blobs

    def blob_at(self, base: Base, path: str) -> bytes | None:
        """The content of ``path`` (relative to ``cwd``) in ``base``, or None if absent."""
        if base.rev == EMPTY_TREE:
            return None
        try:
            sha = (
                run_git(
                    self.cwd,
                    ["rev-parse", "--verify", "--quiet", f"{base.rev}:{self.prefix}{path}"],
                )
                .decode()
                .strip()
            )
        except GitError:
            return None
        return self.read_blobs([sha]).get(sha) if sha else None


@attrs.frozen
class _RawEntry:
    status: str
    path: str
    old_path: str | None
    old_sha: str | None
    new_regular: bool


def _parse_raw(raw: bytes) -> Iterator[_RawEntry]:
    """``:srcmode dstmode srcsha dstsha STATUS\\0path\\0[dst\\0]`` records of ``diff --raw -z``."""
    fields = raw.split(b"\0")
    i = 0
    while i < len(fields) and fields[i]:
        meta = fields[i].decode().lstrip(":").split()
        src_mode, dst_mode, src_sha, _dst_sha, status = meta[:5]
        letter = status[0]
        first = fields[i + 1].decode("utf-8", "surrogateescape")
        if letter in "RC":
            second = fields[i + 2].decode("utf-8", "surrogateescape")
            i += 3
        else:
            second = None
            i += 2
        old_regular = src_mode in _REGULAR_MODES and src_sha != _ZERO_SHA
        new_regular = dst_mode in _REGULAR_MODES
        if letter == "R":
            assert second is not None
            yield _RawEntry("R", second, first, src_sha if old_regular else None, new_regular)
        elif letter == "C":  # a copy leaves its source in place: the copy is new content
            assert second is not None
            yield _RawEntry("A", second, None, None, new_regular)
        else:
            yield _RawEntry(letter, first, None, src_sha if old_regular else None, new_regular)


def _decode(data: bytes | None) -> tuple[str | None, bool]:
    if data is None:
        return None, False
    if b"\0" in data[:_BINARY_SNIFF]:
        return None, True
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return None, True


def _change(
    path: str, status: str, old_path: str | None, old: bytes | None, new: bytes | None
) -> FileChange:
    old_text, old_binary = _decode(old)
    new_text, new_binary = _decode(new)
    if old is None:
        status = "A"
    elif new is None:
        status = "D"
    elif status not in ("R", "A"):
        status = "M"
    return FileChange(path, status, old_path, old_text, new_text, old_binary or new_binary)
