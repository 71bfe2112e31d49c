"""Where an export's files live: ``OUT/records/repo=NAME/part-*.parquet`` and the same
under ``OUT/touches/``.

The ``repo=NAME`` directories are Hive-style partitions, the layout DuckDB, Spark, Hive,
Trino and BigQuery all read as a ``repo`` column, so many repositories' exports sit side by
side under one root. NAME is percent-encoded as Hive escapes partition values (``/`` is
``%2F``), which each of those engines decodes back. Readers skip names that start with
``.``: temp files, the checkpoint and the lock are hidden that way, and a part file only
ever appears under its final name once complete (written, fsynced, renamed).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import attrs

from intent_ls.export import ExportError

RECORDS = "records"
TOUCHES = "touches"
PART_GLOB = "part-*.parquet"
_PART = re.compile(r"part-[0-9a-f]{16}\.parquet")
#: File names are at most 255 bytes on the common file systems.
_MAX_PARTITION = 255
_SCP_URL = re.compile(r"^[^/:]+@[^/:]+:(?P<path>.+)$")


def repo_name(root: Path) -> str:
    """The repository's name for ``--repo``'s default: ``owner/name`` from the ``origin``
    remote when there is one (credentials and host dropped), else the directory's name."""
    url = _origin(root)
    name = _name_from_url(url) if url else None
    return name or root.name


def repo_url(root: Path) -> str | None:
    """The ``origin`` remote as a URL without credentials (``git@host:path`` becomes
    ``ssh://host/path``), None without one."""
    url = _origin(root)
    if not url:
        return None
    scp = _SCP_URL.match(url)
    if scp and "://" not in url:
        host = url.split("@", 1)[1].split(":", 1)[0]
        return f"ssh://{host}/{scp.group('path').lstrip('/')}"
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not parts.scheme or not host:
        return None
    netloc = f"[{host}]" if ":" in host else host
    netloc = netloc if port is None else f"{netloc}:{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _origin(root: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "config", "--get", "remote.origin.url"],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    url = done.stdout.strip()
    return url if done.returncode == 0 and url else None


def _name_from_url(url: str) -> str | None:
    scp = _SCP_URL.match(url)
    path = scp.group("path") if scp and "://" not in url else urlsplit(url).path
    parts = [p for p in path.strip("/").removesuffix(".git").split("/") if p]
    return "/".join(parts[-2:]) or None


def partition(name: str) -> str:
    """The directory name of a repository's partition, refused when it cannot be one."""
    if not name or name.strip() != name:
        raise ExportError(f"repository name {name!r} is empty or has surrounding spaces")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        raise ExportError(f"repository name {name!r} holds control characters")
    encoded = "repo=" + quote(name, safe="-._")
    if len(encoded.encode()) > _MAX_PARTITION:
        raise ExportError(f"repository name is too long for a directory name: {name[:60]!r}…")
    return encoded


@attrs.frozen
class RepoDirs:
    """One repository's two partition directories inside an export root."""

    records: Path
    touches: Path

    @property
    def checkpoint(self) -> Path:
        return self.records / ".intent-ls-checkpoint.json"

    def record_parts(self) -> list[str]:
        return sorted(p.name for p in self.records.glob(PART_GLOB) if _PART.fullmatch(p.name))


def repo_dirs(out: Path, name: str) -> RepoDirs:
    """The partition directories of ``name`` under ``out``, created when missing; every
    directory on the way must be a real directory (a symlink planted in an output tree
    inside someone's repository must not redirect the export)."""
    if out.exists() and not out.is_dir():
        raise ExportError(f"--out {out} exists and is not a directory")
    part = partition(name)
    dirs = RepoDirs(out / RECORDS / part, out / TOUCHES / part)
    for directory in (out, out / RECORDS, out / TOUCHES, dirs.records, dirs.touches):
        with contextlib.suppress(FileExistsError):
            directory.mkdir(parents=True)
        if directory.is_symlink() or not directory.is_dir():
            raise ExportError(f"{directory} is not a directory (a symlink?); not writing there")
    return dirs


def part_name(first_digest: str) -> str:
    """A part is named after the smallest digest it holds: that digest was in no earlier
    part, so the name is new, and a retried run of the same export picks the same name."""
    return f"part-{first_digest.removeprefix('sha256:')[:16]}.parquet"


@contextlib.contextmanager
def exclusive(dirs: RepoDirs) -> Iterator[None]:
    """One exporter per repository partition at a time: two would both find the same
    digests missing and export them twice."""
    fd = os.open(
        dirs.records / ".intent-ls-export.lock",
        os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o644,
    )
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def temp_path(directory: Path, final: str) -> Path:
    return directory / f".{final}.{os.getpid()}.tmp"


def sweep(dirs: RepoDirs) -> None:
    """Removes what an interrupted run left: temp files, and touches parts whose records
    part was never committed (the records part is written last; until it exists its
    digests count as not exported, so the next run writes those touches again)."""
    committed = set(dirs.record_parts())
    for directory in (dirs.records, dirs.touches):
        for leftover in directory.glob(".*.tmp"):
            leftover.unlink(missing_ok=True)
    for orphan in dirs.touches.glob(PART_GLOB):
        if orphan.name not in committed:
            orphan.unlink(missing_ok=True)


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(temp: Path, final: Path) -> None:
    """``temp`` becomes ``final`` all at once, durably: a reader sees the whole file or
    none, and a crash after this returns does not undo it."""
    fsync_file(temp)
    os.replace(temp, final)
    fsync_dir(final.parent)


def export_globs(roots: list[Path], table: str) -> list[str]:
    """The part files of ``table`` under each export root, as DuckDB globs."""
    return [str(root / table / "repo=*" / PART_GLOB) for root in roots]
