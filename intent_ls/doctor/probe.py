"""Running a configured command the way its agent would, without touching the workspace.

A hook run against the real workspace writes its caches and session state under
``.orchestration/.local``, so every probe runs against a *mirror*: a throwaway
directory whose top-level entries are symlinks to the workspace's, except
``.orchestration/``, which holds only a copy of the spec. A command spelt relative to
the project (``$CLAUDE_PROJECT_DIR/.venv/bin/intent-ls``, ``./bin/intent-ls``) still
finds its program through the links, and the hook, told the mirror is its project,
writes nothing but there. :func:`fingerprint` lets the caller prove on disk that the
workspace was left as it was.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import attrs

from intent_ls.common.safe_io import read_sidecar
from intent_ls.spec.load import MAX_SPEC_BYTES, SPEC_RELPATH


@contextlib.contextmanager
def mirror(root: Path) -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="intent-ls-doctor-"))
    links: list[Path] = []
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                if entry.name != ".orchestration":
                    link = base / entry.name
                    os.symlink(entry.path, link)
                    links.append(link)
        # A workspace without .orchestration/ is not governed, and its mirror neither.
        if (root / ".orchestration").is_dir():
            (base / ".orchestration").mkdir()
            # Read as the spec loader reads it (a regular file, capped); a spec that
            # cannot be read stays away, and the hooks refuse writes for want of one.
            with contextlib.suppress(OSError):
                spec = read_sidecar(root / SPEC_RELPATH, MAX_SPEC_BYTES)
                (base / SPEC_RELPATH).write_bytes(spec)
        yield base
    finally:
        for link in links:  # the links first: nothing below may follow them
            with contextlib.suppress(OSError):
                link.unlink()
        shutil.rmtree(base, ignore_errors=True)


def fingerprint(root: Path) -> dict[str, tuple[int, ...]]:
    """What a write under ``.orchestration/`` (``.local`` included) or at the top level
    would change: every entry's type, size, inode and modification time."""
    found: dict[str, tuple[int, ...]] = {}
    with contextlib.suppress(OSError), os.scandir(root) as entries:
        for entry in entries:
            found[entry.name] = ()
    sidecar = root / ".orchestration"
    for folder, dirs, files in os.walk(sidecar):
        for name in (*dirs, *files):
            path = Path(folder) / name
            try:
                st = path.lstat()
            except OSError:
                continue
            found[path.relative_to(root).as_posix()] = (
                st.st_mode,
                st.st_size,
                st.st_ino,
                st.st_mtime_ns,
            )
    return found


def changed(
    before: Mapping[str, tuple[int, ...]], after: Mapping[str, tuple[int, ...]]
) -> list[str]:
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def shell() -> str:
    """The shell the agents run a hook's command line with on Linux and macOS."""
    return shutil.which("bash") or "/bin/sh"


@attrs.frozen
class Ran:
    #: The exit status; None when it did not finish in time or could not start.
    status: int | None
    stdout: str
    stderr: str
    ms: float
    error: str = ""


def spawn(argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> subprocess.Popen[bytes] | str:
    """Starts ``argv`` with piped stdio in a process group of its own; why not, if it
    cannot start."""
    try:
        return subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return f"could not start {argv[0]}: {exc.strerror or exc}"


def run(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], stdin: bytes, timeout: float
) -> Ran:
    """Runs ``argv`` in its own process group, so a command line that started children
    is stopped whole when it overruns."""
    start = time.perf_counter()
    proc = spawn(argv, cwd, env)
    if isinstance(proc, str):
        return Ran(None, "", "", 0.0, proc)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        ms = (time.perf_counter() - start) * 1000
        return Ran(None, _text(out), _text(err), ms, f"no answer within {timeout:g} s")
    ms = (time.perf_counter() - start) * 1000
    return Ran(proc.returncode, _text(out), _text(err), ms)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def last_line(text: str, limit: int = 200) -> str:
    """The last non-blank line of a program's stderr, cut to ``limit`` characters."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    tail = lines[-1] if lines else ""
    return tail if len(tail) <= limit else tail[: limit - 1] + "…"
