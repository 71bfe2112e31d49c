"""Asking git about the workspace without letting the repository run anything.

The hook's one ``git status`` per event (:class:`GitStatus`) and the small queries around
it all go through :func:`intent_ls.common.safe_git.open_repo`: the repository's own git
directory only, and no program its config or attributes name (filters, fsmonitor, hooks,
external diff, pager…) — an agent can write both, and these gits run outside any barrier.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from intent_ls.common.safe_git import collect, kill, open_repo, spawn, work_tree

if TYPE_CHECKING:
    import subprocess

#: Seconds a ``git status`` may take before it is given up (its answer is then None).
STATUS_TIMEOUT = 20


def git_top(root: Path) -> Path | None:
    return work_tree(root)


def git(top: Path, *args: str, input: bytes | None = None) -> bytes | None:
    """``git <args>`` run in ``top``'s repository: its output, or None when it failed or
    the repository's git directory is not its own."""
    if input is None:
        repo = open_repo(top)
        return repo.run(*args) if repo is not None else None
    done = _fed(top, args, input)
    return done.stdout if done is not None and done.returncode == 0 else None


def _fed(
    top: Path, args: tuple[str, ...], data: bytes
) -> subprocess.CompletedProcess[bytes] | None:
    """``git <args>`` fed ``data`` on stdin, whatever its exit status; None when it could
    not run (or the repository's git directory is not its own)."""
    repo = open_repo(top)
    if repo is None:
        return None
    import subprocess  # only for a query fed on stdin: not on every hook event

    try:
        return subprocess.run(
            repo.argv(*args), input=data, capture_output=True, env=repo.env, timeout=20
        )
    except (OSError, subprocess.SubprocessError):
        return None


def git_ignored(top: Path, paths: list[str]) -> set[str]:
    """Those of ``paths`` (top-relative) git's ignore rules match, tracked or not: a file
    git's status never listed, which may have been there before a call; all of them when
    git cannot tell (nothing is then taken for new)."""
    if not paths:
        return set()
    query = "".join(f"{p}\0" for p in paths).encode()
    done = _fed(top, ("check-ignore", "--no-index", "-z", "--stdin"), query)
    if done is not None and done.returncode == 1:  # none of them is ignored
        return set()
    if done is None or done.returncode != 0:
        return set(paths)
    return {p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p}


class GitStatus:
    """A ``git status`` started now and read when needed: ``(HEAD oid or None, {top-relative
    path: XY})`` of every path that differs from the index or HEAD, untracked ones each
    listed; None when git cannot tell (or may not be asked: see :func:`git`). Started as
    early as its answer is fixed (before the tool runs; after protected paths, ignore
    rules among them, are put back), it runs on another core while the hook parses,
    judges and imports — most of a hook's time would otherwise be this one process."""

    def __init__(self, top: Path, prefix: str) -> None:
        self.top, self.prefix = top, prefix
        spec = [f":(top){prefix}"] if prefix else []
        self._answer: tuple[str | None, dict[str, str]] | None = None
        self._started: tuple[int, int] | None = None
        repo = open_repo(top)
        if repo is not None:
            command = repo.argv("status", "--porcelain=v2", "--branch", "-z",
                                "--untracked-files=all", "--no-renames",
                                "--ignore-submodules=all", "--", *spec)  # fmt: skip
            self._started = spawn(command, repo.env)

    def result(self) -> tuple[str | None, dict[str, str]] | None:
        if self._started is None:
            return self._answer
        out = collect(*self._started, timeout=STATUS_TIMEOUT)
        self._started = None
        if out is not None:
            self._answer = _parse_status(out)
        return self._answer

    def cancel(self) -> None:
        """Not needed after all (the call was refused), or given up."""
        if self._started is not None:
            pid, out = self._started
            self._started = None
            os.close(out)
            kill(pid)


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
