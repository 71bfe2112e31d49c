"""Asking git about the workspace without letting the repository run anything.

The hook's one ``git status`` per event (:class:`GitStatus`) and the small queries around
it share :data:`GIT_SAFE` and an environment that cannot point git elsewhere or prompt.
"""

from __future__ import annotations

import os
import select
import signal
import time
from pathlib import Path

#: Git settings that would run programs or write while we only look.
GIT_SAFE = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "diff.external=",
)


def git_top(root: Path) -> Path | None:
    for top in (root, *root.parents):
        if os.path.lexists(top / ".git"):
            return top
    return None


def _env() -> dict[str, str]:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    return env


def git(top: Path, *args: str) -> bytes | None:
    import subprocess

    try:
        done = subprocess.run(
            ["git", *GIT_SAFE, *args],
            cwd=top,
            capture_output=True,
            env=_env(),
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


#: Seconds a ``git status`` may take before it is given up (its answer is then None).
STATUS_TIMEOUT = 20


class GitStatus:
    """A ``git status`` started now and read when needed: ``(HEAD oid or None, {top-relative
    path: XY})`` of every path that differs from the index or HEAD, untracked ones each
    listed; None when git cannot tell. Started as early as its answer is fixed (before
    the tool runs; after protected paths, ignore rules among them, are put back), it runs
    on another core while the hook parses, judges and imports — most of a hook's time
    would otherwise be this one process.

    Spawned with ``os.posix_spawnp`` and read from a pipe rather than through
    ``subprocess``, whose import (with ``selectors`` and ``locale``) costs every hook
    process ~2 ms; as ``subprocess`` would: stdin and stderr on ``/dev/null``, signals
    Python ignores (SIGPIPE, SIGXFSZ) back to their defaults, no other descriptor
    inherited (Python opens them all close-on-exec)."""

    def __init__(self, top: Path, prefix: str) -> None:
        self.top, self.prefix = top, prefix
        spec = [f":(top){prefix}"] if prefix else []
        command = ["git", "-C", str(top), *GIT_SAFE, "status", "--porcelain=v2", "--branch",
                   "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all",
                   "--", *spec]  # fmt: skip
        self._pid: int | None = None
        self._out: int | None = None
        self._answer: tuple[str | None, dict[str, str]] | None = None
        read_end, write_end = os.pipe()
        null = os.open(os.devnull, os.O_RDWR)
        try:
            self._pid = os.posix_spawnp(
                "git",
                command,
                _env(),
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, null, 0),
                    (os.POSIX_SPAWN_DUP2, write_end, 1),
                    (os.POSIX_SPAWN_DUP2, null, 2),
                ],
                setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),
            )
            self._out = read_end
        except OSError:
            os.close(read_end)
        finally:
            os.close(write_end)
            os.close(null)

    def result(self) -> tuple[str | None, dict[str, str]] | None:
        if self._pid is None or self._out is None:
            return self._answer
        chunks: list[bytes] = []
        deadline = time.monotonic() + STATUS_TIMEOUT
        poller = select.poll()
        poller.register(self._out, select.POLLIN)
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not poller.poll(left * 1000):
                    self.cancel()  # overran: no answer rather than a late one
                    return None
                chunk = os.read(self._out, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            self.cancel()
            return None
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        self._close()
        if os.waitstatus_to_exitcode(status) != 0:
            return None
        self._answer = _parse_status(b"".join(chunks))
        return self._answer

    def cancel(self) -> None:
        """Not needed after all (the call was refused), or given up."""
        if self._pid is not None:  # not reaped yet, so the pid is still this child's
            os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
            self._pid = None
        self._close()

    def _close(self) -> None:
        if self._out is not None:
            os.close(self._out)
            self._out = None


def start_status(root: Path) -> GitStatus | None:
    """The workspace's ``git status``, started; None outside git."""
    top = git_top(root)
    if top is None:
        return None
    return GitStatus(top, "" if top == root else root.relative_to(top).as_posix() + "/")


def _parse_status(out: bytes) -> tuple[str | None, dict[str, str]]:
    head: str | None = None
    entries: dict[str, str] = {}
    for item in out.split(b"\0"):
        if not item:
            continue
        text = os.fsdecode(item)
        if text.startswith("# branch.oid "):
            oid = text[len("# branch.oid ") :]
            head = None if oid == "(initial)" else oid
        elif text.startswith("1 "):
            parts = text.split(" ", 8)
            entries[parts[8]] = parts[1]
        elif text.startswith("u "):
            parts = text.split(" ", 10)
            entries[parts[10]] = parts[1]
        elif text.startswith("? "):
            entries[text[2:]] = "??"
    return head, entries
