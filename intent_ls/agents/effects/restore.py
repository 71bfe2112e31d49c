"""Putting a path back as it was before the call: re-created, rewritten or removed.

Nothing is followed on the way: a symlink or a file now standing where a directory of the
path was is removed first (the agent put it there), and the content is written to a
temp file created exclusively in the real parent, then renamed over the path (which
replaces a link standing there rather than writing through it).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from intent_ls.agents.effects.compare import Before, Effect
from intent_ls.agents.effects.store import Store
from intent_ls.common.safe_io import write_all


class Unrestorable(Exception):
    """The path's former state cannot be put back (not kept, or no longer valid)."""


def remove(path: str) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        _remove_tree(path)
    else:
        os.unlink(path)


def _remove_tree(path: str) -> None:
    """shutil loads the compression modules with it (~3 ms): only a directory to remove
    pays for them, not every after-tool event."""
    import shutil

    shutil.rmtree(path)


def _real_parents(path: str, anchor: str) -> None:
    """Makes every directory between ``anchor`` and ``path`` a real directory."""
    rel = os.path.relpath(os.path.dirname(path), anchor)
    if rel == ".":
        return
    here = anchor
    for part in rel.split(os.sep):
        here = os.path.join(here, part)
        try:
            st = os.lstat(here)
        except FileNotFoundError:
            os.mkdir(here)
            continue
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(here)
            os.mkdir(here)


def _anchor(path: str, root: Path) -> str:
    """The deepest directory above ``path`` nobody could have replaced during the call:
    the workspace root, or the home directory for the agents' user settings."""
    text = str(root)
    if path.startswith(text + os.sep):
        return text
    home = os.path.expanduser("~")
    if path.startswith(home + os.sep):
        return home
    return os.path.dirname(path)


def put_back(effect: Effect, store: Store, root: Path) -> None:
    """Restores ``effect.path`` to ``effect.before``; raises :class:`Unrestorable`."""
    path, before = effect.path, effect.before
    if not before.exists or before.cache:
        remove(path)
        return
    if before.link is not None:
        _real_parents(path, _anchor(path, root))
        remove(path)
        os.symlink(before.link, path)
        return
    if before.size is not None:
        _cut_ledger(path, before)
        return
    data = store.get(before.blob) if before.blob else None
    if data is None:
        raise Unrestorable(f"{path}: its former content was not kept")
    write_back(path, data, before, root)


def write_back(path: str, data: bytes, before: Before, root: Path) -> None:
    _real_parents(path, _anchor(path, root))
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISDIR(os.lstat(path).st_mode):
            _remove_tree(path)
    parent, name = os.path.split(path)
    tmp = os.path.join(parent, f".{name}.{os.urandom(6).hex()}.intent-ls")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, before.mode)
    try:
        write_all(fd, data)
        os.fchmod(fd, before.mode)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _cut_ledger(path: str, before: Before) -> None:
    from intent_ls.agents.effects.compare import ledger_appended

    if ledger_appended(path, before) is None:
        raise Unrestorable(f"{path}: rewritten, not appended to; only appends can be cut off")
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
    try:
        os.ftruncate(fd, before.size or 0)
    finally:
        os.close(fd)
