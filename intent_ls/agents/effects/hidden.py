"""Tracked files git's index was told not to look at.

``git update-index --assume-unchanged`` or ``--skip-worktree`` makes ``git status`` stop
reporting a tracked file's changes, and ``.git/index`` cannot be protected (``git add``
and ``git commit`` write it). So an agent could flag ``src/auth/login.py`` in one call
and rewrite it in the next, unseen by :func:`.compare.file_changes`. Such files are
therefore kept and compared like the files ``git status`` lists: one flagged before the
call is copied and compared by identity; one flagged during it counts as changed when
its ctime is not older than the snapshot or it is gone.

Listing the flags is one ``git ls-files -v`` (about 10 ms), run only when the index file
itself changed since the last listing; the listing is kept in the effects store. The
bits are left as they are: a human's own ``--skip-worktree`` on a local settings file is
legitimate, and what matters is what the call did to the file, not the flag.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from intent_ls.agents.effects.git import git
from intent_ls.agents.effects.store import Store, signature

_STATE = "index-flags.json"
#: File times come from the kernel's coarse clock, which may lag the snapshot's reading
#: by a tick; a change this close before the snapshot still counts.
CLOCK_SLACK = 20_000_000
#: A sparse checkout flags every file outside its cone; past this many flagged files
#: only those the listing finds changed are looked at.
MAX_WATCHED = 5000


def _index_path(top: Path) -> Path | None:
    dot = top / ".git"
    if dot.is_dir():
        return dot / "index"
    found = git(top, "rev-parse", "--git-path", "index")
    return top / os.fsdecode(found).strip() if found else None


def flagged(store: Store, top: Path, prefix: str) -> list[str]:
    """Top-relative paths under ``prefix`` whose index entry hides their changes."""
    index = _index_path(top)
    try:
        sig = signature(os.stat(index)) if index is not None else None
    except OSError:
        sig = None
    if sig is None:
        return []
    kept = store.read_state(_STATE)
    if kept.get("sig") == sig and kept.get("prefix") == prefix:
        paths = kept.get("flagged")
        if isinstance(paths, list):
            return [p for p in paths if isinstance(p, str)]
    spec = [f":(top){prefix}"] if prefix else []
    listing = git(top, "ls-files", "-v", "-z", "--", *spec)
    if listing is None:
        return []
    paths = []
    for item in listing.split(b"\0"):
        tag = item[:1]
        if item and (tag == b"S" or tag.islower()):
            paths.append(os.fsdecode(item[2:]))
    store.write_state(_STATE, {"sig": sig, "prefix": prefix, "flagged": paths})
    return paths


def watched(store: Store, top: Path, prefix: str) -> list[str] | None:
    """Every flagged file, for the snapshot: each existing one is kept like a dirty file
    (so a change is put back to the bytes it had, local edits included); None past
    :data:`MAX_WATCHED` (a sparse checkout), where only flags set during a call count."""
    found = flagged(store, top, prefix)
    return found if len(found) <= MAX_WATCHED else None


def newly_flagged(store: Store, top: Path, info: dict[str, Any]) -> list[str]:
    """Files flagged during the call (per the snapshot's ``info["git"]``) that the call
    changed or deleted; their content before the call was the index's."""
    started = info.get("started")
    before = info.get("flagged")
    if not isinstance(started, int) or not isinstance(before, list):
        return []
    known = set(before) | set(info.get("dirty") or ())
    found = []
    for rel in flagged(store, top, info["prefix"]):
        if rel in known:
            continue
        try:
            if os.lstat(top / rel).st_ctime_ns < started - CLOCK_SLACK:
                continue
        except OSError:
            pass
        found.append(rel)
    return found
