"""The git edge of ``intent-ls check``: which files differ between a base revision and the
working tree, with both texts.

Everything goes through a fixed, small number of ``git`` processes whatever the number of
changed files (one ``diff --raw``, one ``ls-files``, one ``cat-file --batch``), and every
path crosses the process boundary NUL-terminated (``-z``), so spaces, quotes, newlines and
non-ASCII names need no unquoting. The line diff itself is computed in Python with
:func:`intent_ls.common.diff.diff_lines` — the same diff the ledger used when it recorded the
saves, so "changed line" means the same thing on both sides.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import attrs

from intent_ls.common.safe_git import open_repo, real_git_dir, work_tree
from intent_ls.common.safe_io import FileTooLargeError, read_regular

#: git's well-known empty tree: the base of a repository with no commit yet.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_ZERO_SHA = "0" * 40
_REGULAR_MODES = ("100644", "100755")
_SYMLINK_MODE = "120000"
#: Larger files are never read whole (a sparse file can claim any size): they are reported
#: as changes no text record can cover, like binary files.
MAX_CHECK_BYTES = 32 * 1024 * 1024
#: A symlink's target is a path; anything longer is not one.
_MAX_LINK_BYTES = 4096
_BINARY_SNIFF = 8000
#: Keep git's output stable whatever the user's configuration says.
_GIT_CONFIG = ("-c", "core.quotePath=false", "-c", "diff.noprefix=false")


class GitError(Exception):
    """git is missing, the directory is not a repository, or a revision does not resolve."""


@attrs.frozen
class FileChange:
    """One changed file. ``old_text``/``new_text`` are None when that side has no regular
    file (added, deleted, or a symlink/submodule there); ``binary`` when a side is not UTF-8
    text or (``too_large``) above :data:`MAX_CHECK_BYTES`. ``old_link``/``new_link`` are
    the targets when that side is a symlink. Paths are relative to the directory git was
    asked about, POSIX style."""

    path: str
    status: str  # A, M, D, R (rename: ``old_path`` is where it came from)
    old_path: str | None
    old_text: str | None
    new_text: str | None
    binary: bool = False
    old_link: str | None = None
    new_link: str | None = None
    too_large: bool = False


@attrs.frozen
class Base:
    """The resolved base: ``rev`` is a commit id (or the empty tree), ``label`` what to show."""

    rev: str
    label: str


def _command(cwd: Path, args: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """``git <args>`` as run in ``cwd``, and its environment. Inside a repository, through
    :mod:`intent_ls.common.safe_git`: its own git directory only, and no program its
    config or attributes name (an agent may have written both; ``check`` runs with the
    user's or CI's rights)."""
    top = work_tree(Path(os.path.realpath(cwd)))
    if top is None:  # git says it is not a repository, in its own words
        return ["git", *_GIT_CONFIG, *args], {
            **os.environ,
            "GIT_OPTIONAL_LOCKS": "0",
            "LC_ALL": "C",
        }
    if real_git_dir(top) is None:
        raise GitError(
            f"{top}/.git points at another repository (a commondir, a symlink or a gitdir "
            "file git would not have written): refusing to run git there"
        )
    repo = open_repo(top)
    if repo is None:  # the repository is its own, but git could not list its config
        if shutil.which("git") is None:
            raise GitError("git is not installed (or not on PATH)")
        raise GitError(f"git cannot read the configuration of {top}")
    return repo.here(*_GIT_CONFIG, *args), {**repo.env, "LC_ALL": "C"}


def run_git(cwd: Path, args: Sequence[str], *, input: bytes | None = None) -> bytes:
    command, env = _command(cwd, args)
    try:
        proc = subprocess.run(
            command,
            cwd=cwd,
            input=input,
            capture_output=True,
            check=False,
            env=env,
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

    def changes(self, base: Base, skip: Sequence[str] = ()) -> list[FileChange]:
        """Every file that differs between ``base`` and the working tree under ``cwd``:
        tracked changes (renames detected), plus untracked files that are not ignored;
        but the ``skip`` paths (relative to ``cwd``), which git does not even look at.

        That matters for the ledger: in a fresh clone git's index holds it "racily
        clean" (its mtime is the index's own), so every ``git diff`` hashes it again to
        be sure, and git's collision-detecting SHA-1 takes ~16 CPU-s for 1M records."""
        limit = ["--", ".", *(f":(exclude,literal){path}" for path in skip)]
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
                *limit,
            ],
        )
        entries = list(_parse_raw(raw))
        wanted = [sha for e in entries for sha in (e.old_sha, e.old_link_sha) if sha]
        blobs = self.read_blobs(wanted, cap=MAX_CHECK_BYTES)
        out = [change for e in entries if (change := self._tracked(e, blobs)) is not None]
        out += self._untracked(limit)
        out.sort(key=lambda c: c.path)
        return out

    def _tracked(self, e: _RawEntry, blobs: dict[str, bytes | None]) -> FileChange | None:
        """The change a ``diff --raw`` entry makes, None when neither side is a file or a
        symlink (a submodule); a file too large to read on its one side is a deletion no
        text record can cover."""
        old, old_large, old_link = _old_side(e, blobs)
        new, new_large, new_link = self._new_side(e)
        large = new_large or (old_large and new is not None)
        if old_large and new is None and not new_large and new_link is None:
            gone = e.old_path if e.status == "R" else None
            return FileChange(e.path, "D", gone, None, None, True, too_large=True)
        if old is None and new is None and new_link is None and not large:
            return None
        return _change(
            e.path, e.status, e.old_path, old, new, large, old_link=old_link, new_link=new_link
        )

    def _new_side(self, e: _RawEntry) -> tuple[bytes | None, bool, str | None]:
        """The working tree's side of an entry: its bytes (if a regular file), whether it
        was too large to read, and its target (if a symlink)."""
        new, new_large = self._read_worktree(e.path) if e.new_regular else (None, False)
        return new, new_large, self._read_link(e.path) if e.new_link else None

    def _untracked(self, limit: list[str]) -> Iterator[FileChange]:
        """Files git does not track and does not ignore, as additions."""
        untracked = run_git(self.cwd, ["ls-files", "--others", "--exclude-standard", "-z", *limit])
        for name in untracked.split(b"\0"):
            if not name:
                continue
            path = name.decode("utf-8", "surrogateescape")
            link = self._read_link(path)
            new, large = self._read_worktree(path) if link is None else (None, False)
            if new is not None or large or link is not None:
                yield _change(path, "A", None, None, new, large, new_link=link)

    def tracks(self, path: str) -> bool:
        """Whether git tracks anything at or under ``path`` (relative to ``cwd``)."""
        return bool(run_git(self.cwd, ["ls-files", "-z", "--", path]))

    def _read_worktree(self, path: str) -> tuple[bytes | None, bool]:
        """A regular file's bytes (never through a symlink, never a FIFO or device), and
        whether it was too large to read."""
        try:
            return read_regular(self.cwd / path, MAX_CHECK_BYTES), False
        except FileTooLargeError:
            return None, True
        except OSError:
            return None, False

    def _read_link(self, path: str) -> str | None:
        try:
            return os.readlink(self.cwd / path)
        except OSError:  # not a symlink (or gone)
            return None

    def read_blobs(self, shas: Sequence[str], *, cap: int | None = None) -> dict[str, bytes | None]:
        """Contents of many blobs through one ``cat-file --batch`` process. With ``cap``,
        blobs above it are asked for their size only (one ``--batch-check`` first) and
        map to None: git would otherwise hand over every byte of a huge blob."""
        unique = list(dict.fromkeys(shas))
        if not unique:
            return {}
        large: list[str] = []
        if cap is not None:
            sizes = _batch_sizes(self.cwd, unique)
            large = [sha for sha in unique if sizes.get(sha, 0) > cap]
            unique = [sha for sha in unique if sizes.get(sha, 0) <= cap]
        blobs: dict[str, bytes | None] = dict.fromkeys(large)
        if not unique:
            return blobs
        out = run_git(
            self.cwd, ["cat-file", "--batch"], input="".join(f"{sha}\n" for sha in unique).encode()
        )
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
        sha = self._blob_sha(base, path)
        return self.read_blobs([sha]).get(sha) if sha else None

    def object_at(self, base: Base, path: str) -> tuple[str, str, int] | None:
        """The object id, type (a blob, unless the repository is odd) and size of
        ``path`` in ``base`` without its content (None if absent): a 1 GB ledger is
        compared by hash or streamed, never held."""
        sha = self._blob_sha(base, path)
        if sha is None:
            return None
        out = run_git(self.cwd, ["cat-file", "--batch-check"], input=f"{sha}\n".encode())
        fields = out.decode().split()
        if len(fields) != 3 or not fields[2].isdigit():  # "<sha> missing"
            return None
        return sha, fields[1], int(fields[2])

    @contextmanager
    def open_object(self, sha: str, kind: str) -> Iterator[IO[bytes]]:
        """The raw content of object ``sha`` of type ``kind``, streamed from git."""
        command, env = _command(self.cwd, ["cat-file", kind, sha])
        try:
            proc = subprocess.Popen(
                command, cwd=self.cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
            )
        except FileNotFoundError as exc:
            raise GitError("git is not installed (or not on PATH)") from exc
        assert proc.stdout is not None
        drained = False
        with proc:
            try:
                yield proc.stdout
                drained = not proc.stdout.read(1)
            finally:
                proc.stdout.close()
                proc.wait()
        if drained and proc.returncode != 0:  # a reader that stopped early stopped git too
            raise GitError(f"git cat-file {kind} {sha} failed")

    def _blob_sha(self, base: Base, path: str) -> str | None:
        if base.rev == EMPTY_TREE:
            return None
        try:
            out = run_git(
                self.cwd, ["rev-parse", "--verify", "--quiet", f"{base.rev}:{self.prefix}{path}"]
            )
        except GitError:
            return None
        return out.decode().strip() or None


def _batch_sizes(cwd: Path, shas: Sequence[str]) -> dict[str, int]:
    out = run_git(
        cwd, ["cat-file", "--batch-check"], input="".join(f"{s}\n" for s in shas).encode()
    )
    sizes: dict[str, int] = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2].isdigit():
            sizes[fields[0].decode()] = int(fields[2])
    return sizes


def _old_side(
    e: _RawEntry, blobs: dict[str, bytes | None]
) -> tuple[bytes | None, bool, str | None]:
    """The base's side of an entry: its bytes (if a regular file), whether it was too
    large to read, and its target (if a symlink)."""
    old = blobs.get(e.old_sha) if e.old_sha else None
    old_large = e.old_sha is not None and e.old_sha in blobs and old is None
    link_blob = blobs.get(e.old_link_sha) if e.old_link_sha else None
    return old, old_large, _link_text(link_blob) if link_blob is not None else None


def _link_text(data: bytes) -> str:
    return data[:_MAX_LINK_BYTES].decode("utf-8", "surrogateescape")


@attrs.frozen
class _RawEntry:
    status: str
    path: str
    old_path: str | None
    old_sha: str | None
    new_regular: bool
    old_link_sha: str | None = None
    new_link: bool = False


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
        old_link = src_sha if src_mode == _SYMLINK_MODE and src_sha != _ZERO_SHA else None
        new_link = dst_mode == _SYMLINK_MODE
        if letter == "R":
            assert second is not None
            yield _RawEntry(
                "R",
                second,
                first,
                src_sha if old_regular else None,
                new_regular,
                old_link,
                new_link,
            )
        elif letter == "C":  # a copy leaves its source in place: the copy is new content
            assert second is not None
            yield _RawEntry("A", second, None, None, new_regular, None, new_link)
        else:
            yield _RawEntry(
                letter,
                first,
                None,
                src_sha if old_regular else None,
                new_regular,
                old_link,
                new_link,
            )


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
    path: str,
    status: str,
    old_path: str | None,
    old: bytes | None,
    new: bytes | None,
    too_large: bool = False,
    *,
    old_link: str | None = None,
    new_link: str | None = None,
) -> FileChange:
    old_text, old_binary = _decode(old)
    new_text, new_binary = _decode(new)
    if too_large:
        status = "M" if status in ("M", "T") else ("R" if status == "R" else "A")
    elif old is None:
        status = "A"
    elif new is None:
        status = "D"
    elif status not in ("R", "A"):
        status = "M"
    return FileChange(
        path,
        status,
        old_path,
        old_text,
        new_text,
        old_binary or new_binary or too_large,
        old_link,
        new_link,
        too_large,
    )
