"""Asking git about the workspace without letting the repository run anything.

The hook's one ``git status`` per event (:class:`GitStatus`) and the small queries around
it share :data:`GIT_SAFE` and an environment that cannot point git elsewhere or prompt.
"""

from __future__ import annotations

import os
import subprocess
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


class GitStatus:
    """A ``git status`` started now and read when needed: ``(HEAD oid or None, {top-relative
    path: XY})`` of every path that differs from the index or HEAD, untracked ones each
    listed; None when git cannot tell. Started as early as its answer is fixed (before
    the tool runs; after protected paths, ignore rules among them, are put back), it runs
    on another core while the hook parses, judges and imports — most of a hook's time
    would otherwise be this one process."""

    def __init__(self, top: Path, prefix: str) -> None:
        self.top, self.prefix = top, prefix
        spec = [f":(top){prefix}"] if prefix else []
        command = ["git", *GIT_SAFE, "status", "--porcelain=v2", "--branch", "-z",
                   "--untracked-files=all", "--no-renames", "--ignore-submodules=all",
                   "--", *spec]  # fmt: skip
        try:
            self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                command,
                cwd=top,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=_env(),
            )
        except OSError:
            self._proc = None

    def result(self) -> tuple[str | None, dict[str, str]] | None:
        proc = self._proc
        if proc is None:
            return None
        try:
            out, _ = proc.communicate(timeout=20)
        except subprocess.SubprocessError:
            self.cancel()
            return None
        return _parse_status(out) if proc.returncode == 0 else None

    def cancel(self) -> None:
        """Not needed after all (the call was refused)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()


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
