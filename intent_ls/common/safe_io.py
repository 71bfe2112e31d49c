"""The one door through which intent-ls reads and writes files in a repository it did not write.

A cloned repository can commit symlinks, FIFOs and oversized files exactly where intent-ls
keeps its sidecar. Every write therefore walks from the workspace down with directory file
descriptors (``openat``), refusing any component that is a symlink or not a directory, and
opens the final name with ``O_NOFOLLOW``; temp files are created exclusively under an
unguessable name in the same directory and renamed into place. Every read opens with
``O_NONBLOCK`` (a FIFO cannot block the caller), checks with ``fstat`` that it got a regular
file, and stops at a size cap while reading (``/dev/zero`` or a growing file cannot make the
caller allocate without bound). Nothing here imports pygls: the CLI and hooks use it too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

SIDECAR_DIR = ".orchestration"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CHUNK = 1024 * 1024


class UnsafePathError(OSError):
    """A path intent-ls refuses to touch. An ``OSError``, so every caller that already
    degrades on I/O failure (server: message and carry on) degrades on this too; its text
    names the path and says why, and the CLI prints it and exits 2."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(f"refusing to use {path}: it {why}")
        self.path = str(path)


class FileTooLargeError(OSError):
    """A file above the cap its reader allows."""

    def __init__(self, path: Path | str, cap: int) -> None:
        super().__init__(f"{path} is larger than {_size_label(cap)}; not read")
        self.path = str(path)
        self.cap = cap


def _size_label(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size} bytes"


def anchor_of(path: Path | str) -> Path:
    """The directory trusted as real for ``path``: the workspace holding its
    ``.orchestration/`` component, else its own parent directory."""
    text = os.fspath(path)
    at = ("/" + text).rfind(f"/{SIDECAR_DIR}/")
    if at < 0:
        return Path(os.path.dirname(text) or ".")
    return Path(text[: max(at - 1, 0)] or ("/" if text.startswith("/") else "."))


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "is a symlink"
    if stat.S_ISDIR(mode):
        return "is a directory, not a regular file"
    if stat.S_ISFIFO(mode):
        return "is a FIFO, not a regular file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file"
    return "is not a regular file"


def _describe(name: str, dir_fd: int | None) -> str | None:
    """Why ``name`` is unusable as a regular file, or None if it is one (or is absent)."""
    try:
        st = os.lstat(name, dir_fd=dir_fd)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(name, dir_fd=dir_fd)
        except OSError:
            return "is a symlink"
        return f"is a symlink (to {target})"
    return None if stat.S_ISREG(st.st_mode) else _kind(st.st_mode)


@contextlib.contextmanager
def _directory(directory: Path | str, anchor: Path | str, create: bool) -> Iterator[int]:
    """A descriptor on ``directory``, reached from ``anchor`` one real directory at a time.
    (String operations, not pathlib: this runs on every ledger append and map write.)"""
    target, base = os.path.normpath(directory), os.path.normpath(anchor)
    prefix = base.rstrip("/") + "/"
    if target == base:
        parts: list[str] = []
    elif target.startswith(prefix):
        parts = target[len(prefix) :].split("/")
    else:
        raise UnsafePathError(directory, f"is outside the workspace {anchor}")
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for depth, part in enumerate(parts, 1):
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fd)
                child = _open_dir(part, fd, prefix + "/".join(parts[:depth]))
            except OSError as exc:
                raise _dir_refusal(part, fd, prefix + "/".join(parts[:depth]), exc) from None
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def _open_dir(part: str, fd: int, here: str) -> int:
    try:
        return os.open(part, _DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        raise _dir_refusal(part, fd, here, exc) from None


def _dir_refusal(part: str, fd: int, here: str, exc: OSError) -> OSError:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        try:
            st = os.lstat(part, dir_fd=fd)
        except OSError:
            return exc
        why = _describe(part, fd) if stat.S_ISLNK(st.st_mode) else None
        return UnsafePathError(here, why or "is not a directory")
    return exc


def _open_in(dir_fd: int, path: str, flags: int, mode: int) -> int:
    """Opens the final component: never through a symlink, never anything but a regular file."""
    name = os.path.basename(path)
    return _regular_fd(
        path,
        lambda: os.open(name, flags | _FILE_FLAGS, mode, dir_fd=dir_fd),
        (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.ENOTDIR, errno.EOPNOTSUPP),
        name,
        dir_fd,
    )


def _regular_fd(
    path: Path | str,
    opener: Callable[[], int],
    refused: tuple[int, ...],
    name: str,
    dir_fd: int | None,
) -> int:
    """``opener()``'s descriptor if it is a regular file; an open failing with one of the
    ``refused`` errors, or anything but a regular file, is :class:`UnsafePathError`
    naming what ``name`` really is."""
    try:
        fd = opener()
    except OSError as exc:
        if exc.errno in refused:
            why = _describe(name, dir_fd)
            if why is not None:
                raise UnsafePathError(path, why) from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UnsafePathError(path, _kind(mode))
    return fd


def require_regular(path: Path) -> None:
    """Refuses ``path`` if it exists as anything but a regular file: for files another
    library opens by name (SQLite follows symlinks)."""
    why = _describe(str(path), None)
    if why is not None:
        raise UnsafePathError(path, why)


def open_sidecar(
    path: Path | str, flags: int, *, anchor: Path | None = None, create_dirs: bool = False
) -> int:
    """A raw descriptor on the regular file ``path`` (``os.open`` flags), every directory
    from ``anchor`` (default :func:`anchor_of`) down checked to be real."""
    text = os.fspath(path)
    with _directory(os.path.dirname(text), anchor or anchor_of(text), create_dirs) as dfd:
        return _open_in(dfd, text, flags, 0o644)


def open_sidecar_reader(path: Path, *, anchor: Path | None = None) -> BinaryIO:
    """A buffered binary reader on a sidecar file (e.g. the ledger, streamed)."""
    return os.fdopen(open_sidecar(path, os.O_RDONLY, anchor=anchor), "rb")


def ensure_sidecar_dir(directory: Path, *, anchor: Path | None = None) -> Path:
    """Creates ``directory`` (and its parents) as real directories, refusing symlinks."""
    directory = Path(directory)
    with _directory(directory, anchor or anchor_of(directory), True):
        return directory


def read_sidecar(path: Path, cap: int, *, anchor: Path | None = None) -> bytes:
    """The whole sidecar file, refused (:class:`FileTooLargeError`) above ``cap`` bytes."""
    fd = open_sidecar(path, os.O_RDONLY, anchor=anchor)
    return _read_capped(fd, path, cap)


def read_regular(path: Path, cap: int, *, follow: bool = False) -> bytes:
    """A repository file's bytes: regular files only, at most ``cap`` bytes. Symlinks
    are refused unless ``follow`` (then the file they name must still be regular)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    refused = (errno.ELOOP, errno.ENXIO, errno.EISDIR)
    fd = _regular_fd(path, lambda: os.open(path, flags), refused, str(path), None)
    return _read_capped(fd, path, cap)


def _read_capped(fd: int, path: Path | str, cap: int) -> bytes:
    try:
        if os.fstat(fd).st_size > cap:
            raise FileTooLargeError(path, cap)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(_CHUNK, cap + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:  # the file grew while we read it
                raise FileTooLargeError(path, cap)
    finally:
        os.close(fd)


def write_atomic(
    path: Path, data: bytes, *, anchor: Path | None = None, fsync: bool = False
) -> None:
    """Replaces ``path`` with ``data`` all at once: readers see the old or the new bytes.
    A ``path`` that exists as a symlink or special file is refused, not replaced."""
    path = Path(path)
    with _directory(path.parent, anchor or anchor_of(path), True) as dfd:
        why = _describe(path.name, dfd)
        if why is not None:
            raise UnsafePathError(path, why)
        tmp, fd = _exclusive_temp(dfd, path.name)
        try:
            try:
                write_all(fd, data)
                if fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd``: ``os.write`` may write less than asked (a signal, a
    full pipe, a file size limit)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_new(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """``data`` in a file created by this call, never one someone prepared at the name
    (a symlink or an existing file fails: ``O_EXCL | O_NOFOLLOW``)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, mode)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


def _exclusive_temp(dir_fd: int, name: str) -> tuple[str, int]:
    """A new file no one else can have prepared: random name, ``O_CREAT | O_EXCL``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        tmp = f".{name}.{os.urandom(8).hex()}.tmp"
        try:
            return tmp, os.open(tmp, flags, 0o644, dir_fd=dir_fd)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "could not create a unique temporary file", name)
