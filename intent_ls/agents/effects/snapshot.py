"""The workspace's state just before a tool call, as cheaply as it can be known.

- Protected files (:mod:`.protected_set`): identity (size, mtime, ctime, inode, mode)
  and a content copy, so any change can be put back byte for byte. Derived caches are
  only identified (a changed one is deleted); the ledger, when above the copy limit, by
  its size and the digest of its last 64 KiB (appends can be cut off, nothing else).
- Everything git tracks or sees untracked: ``git status`` (one process) for the files
  that differ from the index, each identified and copied; a clean tracked file's
  content is the ``HEAD`` commit's, read from git only if the call changes it.

Files git ignores are not looked at (build outputs, ``node_modules``): what the agent
writes there is neither put back nor recorded; except the small files that hold a human's
own work (``.env``, ``*.local``: :mod:`.human_files`), kept like those ``git status``
lists so that their deletion can be undone.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from pathlib import Path
from typing import Any

from intent_ls.agents.effects import protected_set
from intent_ls.agents.effects.git import GitStatus, start_status
from intent_ls.agents.effects.hidden import watched
from intent_ls.agents.effects.human_files import human_files
from intent_ls.agents.effects.store import MAX_COPY, Store, signature

TAIL = 64 * 1024


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
    found = files(store, root, status)
    if found is not None:
        snapshot["git"] = found
    store.save_cache()
    return snapshot


def files(store: Store, root: Path, status: GitStatus | None = None) -> dict[str, Any] | None:
    """What git sees of the workspace: ``HEAD`` and every file that differs from the
    index (copied), with the human's ignored files (:mod:`.human_files`); None outside
    a git repository."""
    started = time.time_ns()
    run = status or start_status(root)
    found = run.result() if run is not None else None
    if run is None or found is None:
        return None
    head, entries = found
    dirty: dict[str, Any] = {}
    for rel, xy in entries.items():
        dirty[rel] = file_entry(store, run.top, rel, xy)
    hidden = watched(store, run.top, run.prefix)
    for rel in hidden or ():
        if rel not in dirty and os.path.lexists(run.top / rel):
            dirty[rel] = file_entry(store, run.top, rel, "..")
    for rel in human_files(store, run.top, run.prefix):
        if rel not in dirty:
            dirty[rel] = file_entry(store, run.top, rel, "!!")
    return {
        "top": str(run.top),
        "prefix": run.prefix,
        "head": head,
        "dirty": dirty,
        "flagged": hidden,
        "started": started,
    }


def dirty_before(snapshot: dict[str, Any]) -> set[str]:
    """The top-relative paths git's status listed before the call (untracked or changed)."""
    info = snapshot.get("git")
    dirty = info.get("dirty") if isinstance(info, dict) else None
    return set(dirty) if isinstance(dirty, dict) else set()


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
