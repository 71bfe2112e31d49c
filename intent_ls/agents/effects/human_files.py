"""Small files git ignores that hold a human's own work: ``.env`` and its variants,
``.envrc``, ``*.local`` (``.env.local``, ``config.local``). ``git status`` never lists
them, so a snapshot would not keep them, and an agent's ``os.remove('.env')`` would
destroy them for good. They are looked for where they live — the workspace folder and
the folders just under it, skipping dependency and build trees — and kept in the
snapshot like the files ``git status`` lists, under a size budget, so that their deletion
or rewrite is judged and can be undone.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Any

from intent_ls.agents.effects.store import Store

#: Names kept whole, and the starts and ends of the others kept.
NAMES = frozenset([".env", ".envrc"])
PREFIXES = (".env.",)
SUFFIXES = (".local",)
#: A file above this is no hand-kept settings file; past this many, the rest are left.
MAX_SIZE = 64 * 1024
MAX_FILES = 64
#: Folders never looked in: dependencies, builds, caches, version control.
SKIPPED = frozenset(
    ["node_modules", ".git", ".venv", "venv", "target", "build", "dist", "__pycache__",
     ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".orchestration"]
)  # fmt: skip


def is_human_file(name: str) -> bool:
    return name in NAMES or name.startswith(PREFIXES) or name.endswith(SUFFIXES)


def human_files(store: Store, top: Path, prefix: str) -> list[str]:
    """``top``-relative paths of such files in the workspace ``top/prefix`` and the
    folders directly under it (at most :data:`MAX_FILES`, each at most :data:`MAX_SIZE`).
    A folder's listing is kept in the effects store with its mtime and read again only
    when an entry was added, removed or renamed there: a snapshot stats the folders
    (tens of microseconds each) rather than listing thousands of files on every call."""
    kept = store.read_state(_STATE)
    cache = kept.get("folders") if kept.get("prefix") == prefix else None
    listing = _Listing(top, cache if isinstance(cache, dict) else {})
    names, folders = listing.read(prefix)
    found = [prefix + n for n in names]
    for folder in folders:
        found += [folder + n for n in listing.read(folder)[0]]
    if listing.changed:
        store.write_state(_STATE, {"prefix": prefix, "folders": listing.fresh})
    return [rel for rel in found if _small(top / rel)][:MAX_FILES]


_STATE = "human-files.json"
#: A folder changed this recently (ns) may change again within its mtime's tick: not kept.
_SETTLED = 2_000_000_000


class _Listing:
    """Each folder's kept names and subfolders, from the cache while its mtime holds."""

    def __init__(self, top: Path, cache: dict[str, Any]) -> None:
        self.top = top
        self.cache = cache
        self.fresh: dict[str, Any] = {}
        self.changed = False

    def read(self, folder: str) -> tuple[list[str], list[str]]:
        try:
            mtime = os.stat(self.top / folder).st_mtime_ns
        except OSError:
            return [], []
        cached = self.cache.get(folder)
        if isinstance(cached, list) and len(cached) == 3 and cached[0] == mtime:
            self.fresh[folder] = cached
            return cached[1], cached[2]
        names, folders = _scan(self.top, folder)
        if time.time_ns() - mtime > _SETTLED:
            self.fresh[folder] = [mtime, names, folders]
            self.changed = True
        return names, folders


def _scan(top: Path, folder: str) -> tuple[list[str], list[str]]:
    """The kept names in ``folder`` and, for the workspace itself, its subfolders."""
    names: list[str] = []
    folders: list[str] = []
    try:
        with os.scandir(top / folder) as it:
            for entry in it:
                if is_human_file(entry.name):
                    names.append(entry.name)
                elif entry.name not in SKIPPED and entry.is_dir(follow_symlinks=False):
                    folders.append(f"{folder}{entry.name}/")
    except OSError:
        pass
    return names, folders


def _small(path: Path) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size <= MAX_SIZE
