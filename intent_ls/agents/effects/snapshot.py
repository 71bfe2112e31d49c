"""The workspace's state just before a tool call, as cheaply as it can be known.

- Protected files (:mod:`.protected_set`): identity (size, mtime, ctime, inode, mode)
  and a content copy, so any change can be put back byte for byte. Derived caches are
  only identified (a changed one is deleted); the ledger, when above the copy limit, by
  its size and the digest of its last 64 KiB (appends can be cut off, nothing else).
- Everything git tracks or sees untracked: ``git status`` (one process) for the files
  that differ from the index, each identified and copied; a clean tracked file's
  content is the ``HEAD`` commit's, read from git only if the call changes it.

Files git ignores are not looked at (build outputs, ``node_modules``): what the agent
writes there is neither put back nor recorded.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

from intent_ls.agents.effects import protected_set
from intent_ls.agents.effects.store import MAX_COPY, Store, signature

TAIL = 64 * 1024
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


def protected_entry(store: Store, path: str, st: os.stat_result) -> dict[str, Any]:
    entry: dict[str, Any] = {"sig": signature(st), "mode": stat.S_IMODE(st.st_mode)}
    name = os.path.basename(path)
    if stat.S_ISLNK(st.st_mode):
        entry["link"] = os.readlink(path)
    elif not stat.S_ISREG(st.st_mode):
        entry["special"] = True
    elif name.startswith(protected_set.CACHE_NAMES):
        entry["cache"] = True
    elif path.endswith("/" + protected_set.LEDGER) and st.st_size > MAX_COPY:
        entry["size"] = st.st_size
        entry["tail"] = tail_digest(path, st.st_size)
    else:
        digest = store.copy_of(path, path, st)
        if digest is None:
            entry["cache"] = True  # too large to copy: a change removes it
        else:
            entry["blob"] = digest
    return entry


def tail_digest(path: str, size: int) -> str | None:
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, size - TAIL))
            return hashlib.sha256(fh.read(min(size, TAIL))).hexdigest()
    except OSError:
        return None


def protected_state(
    store: Store, root: Path, policy: protected_set.PolicyPaths | None = None
) -> dict[str, Any]:
    files, trees = protected_set.roots(root)
    lock = str(root / protected_set.LEDGER_LOCK)
    found: dict[str, Any] = {}
    for path in files:
        try:
            found[path] = protected_entry(store, path, os.lstat(path))
        except OSError:
            continue
    for tree in trees:
        for path, st in protected_set.walk(tree):
            if path != lock and not path.startswith(str(store.dir)):
                found[path] = protected_entry(store, path, st)
    for path, _, st in policy.walk(root) if policy is not None else ():
        found.setdefault(path, protected_entry(store, path, st))
    return found


def take(
    store: Store,
    root: Path,
    policy: protected_set.PolicyPaths | None = None,
    status: GitStatus | None = None,
) -> dict[str, Any]:
    """The snapshot the after-tool event compares with (JSON-serialisable): ``policy``
    is what the repository adds to the protected set, kept in it (``agentProtected``) for
    the after-tool event; ``status`` the workspace's ``git status``, when already started."""
    snapshot: dict[str, Any] = {
        "root": str(root),
        "protected": protected_state(store, root, policy),
        "agentProtected": list(policy.globs) if policy is not None else [],
    }
    run = status or start_status(root)
    if run is not None:
        found = run.result()
        if found is not None:
            head, entries = found
            dirty: dict[str, Any] = {}
            for rel, xy in entries.items():
                dirty[rel] = file_entry(store, run.top, rel, xy)
            snapshot["git"] = {
                "top": str(run.top),
                "prefix": run.prefix,
                "head": head,
                "dirty": dirty,
            }
    store.save_cache()
    return snapshot


def file_entry(store: Store, top: Path, rel: str, xy: str) -> dict[str, Any]:
    path = str(top / rel)
    try:
        st = os.lstat(path)
    except OSError:
        return {"xy": xy, "sig": None}
    entry: dict[str, Any] = {"xy": xy, "sig": signature(st), "mode": stat.S_IMODE(st.st_mode)}
    if stat.S_ISLNK(st.st_mode):
        entry["link"] = os.readlink(path)
    elif stat.S_ISREG(st.st_mode):
        entry["blob"] = store.copy_of(path, path, st)
    return entry
