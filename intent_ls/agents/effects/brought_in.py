"""A pull, merge or rebase the after-tool event takes off the branch, whole.

Commits brought in from elsewhere (a teammate's, through ``git pull``) carry their own
ledger records and, at times, spec changes. An agent's command cannot bring those in:
nothing tells them from commits the command made itself, so :mod:`.git_objects` puts
the branch back. Put back alone, the branch left what the merge had checked out as
changes in the working tree and the index that nobody made: the session recorded the
teammate's files as its own, and the human's own ``git pull`` then stopped on them. So
when git itself moved the branch (a merge, pull, rebase or ``am`` leaves the tip it
moved from in ``ORIG_HEAD``), each file the move changed that is still as the commit
holds it is put back as the old tip holds it, with its index entry. What the command
changed besides stays, judged as any change of the call.

``ORIG_HEAD`` is a hint, not a proof: a command can write it, and then only its own
commit's files are put back as well, which loses nothing (they are in that commit).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from intent_ls.agents.effects import protected_set
from intent_ls.agents.effects.git import git, git_ignored, git_top
from intent_ls.agents.effects.git_objects import (
    Disk,
    Forged,
    current_head,
    move_marks,
    read_ref,
    write_blob,
)
from intent_ls.common.safe_git import real_git_dir

#: File modes the put-back writes as files (symlinks and submodules are left as git
#: checked them out, judged as the call's change).
_FILES = frozenset({"100644", "100755"})
_NULL = frozenset({"0" * 40, "0" * 64})


def brought_in(root: Path, found: Forged) -> bool:
    """Whether git moved the branch ``HEAD`` is on from ``found.old`` itself."""
    top = git_top(root)
    dirs = real_git_dir(top) if top is not None else None
    if dirs is None or found.old is None or found.old.startswith("ref:"):
        return False
    on = read_ref(dirs[0] / "HEAD")
    return on == f"ref: {found.ref}" and read_ref(dirs[0] / "ORIG_HEAD") == found.old


def stopped_pull(root: Path, before: dict[str, Any]) -> Forged | None:
    """A pull that stopped part-way before the branch moved — the commits it fetched
    change the spec, which is read-only to every command, and git stops at it having
    written other files — as the move from ``HEAD`` to the fetched commit, whose files
    :func:`put_back_files` can put back; None for any other call. Both ``FETCH_HEAD``
    and ``ORIG_HEAD`` must have been written during the call, ``ORIG_HEAD`` naming the
    commit ``HEAD`` still names."""
    top = git_top(root)
    dirs = real_git_dir(top) if top is not None else None
    head, ref = before.get("head"), before.get("head_ref")
    if top is None or dirs is None or not isinstance(head, str) or not isinstance(ref, str):
        return None
    marks, now = before.get("marks"), move_marks(dirs[0])
    if not isinstance(marks, list) or len(marks) != 2 or None in now:
        return None
    if marks[0] == now[0] or marks[1] == now[1] or current_head(top) != head:
        return None
    if read_ref(dirs[0] / "ORIG_HEAD") != head:
        return None
    fetched = _fetched(dirs[0] / "FETCH_HEAD")
    if fetched is None or fetched == head:
        return None
    return Forged(ref[4:].strip(), head, fetched, "")


def _fetched(path: Path) -> str | None:
    """The commit a pull merges: ``FETCH_HEAD``'s first line not marked otherwise."""
    try:
        lines = path.read_bytes()[:65536].decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in lines:
        oid, _, rest = line.partition("\t")
        if not rest.startswith("not-for-merge") and len(oid) in (40, 64):
            return oid if all(c in "0123456789abcdef" for c in oid) else None
    return None


def put_back_files(
    root: Path, found: Forged, policy: protected_set.PolicyPaths, dirty: set[str]
) -> list[str]:
    """The workspace files (relative paths) the move from ``found.old`` to
    ``found.commit`` changed, put back where they were still as the commit holds them.

    Only where that is how they were before the call: a path ``dirty`` before it (git's
    status, top-relative: untracked or changed) or ignored by git (whose status never
    listed it) is left alone, so that a commit made to look pulled, adding copies of a
    human's files, cannot have them removed. Protected paths are the protected set's."""
    top = git_top(root)
    if top is None or found.old is None:
        return []
    disk = Disk(root, top)
    real = os.path.realpath(root)
    done: list[str] = []
    for old_mode, new_mode, was, now, path in _moved(top, found.old, found.commit, dirty):
        rel = disk.rel(path)
        if rel is None or not _as_git_wrote(disk, real, rel, (old_mode, new_mode), now, policy):
            continue
        if write_blob(top, root / rel, was, executable=old_mode == "100755"):
            done.append(path)
            if was in _NULL:
                _prune_empty(Path(real), Path(real, rel).parent)
    if done:
        specs = "".join(f":(top,literal){p}\0" for p in done).encode()
        git(top, "reset", "-q", found.old, "--pathspec-from-file=-", "--pathspec-file-nul",
            input=specs)  # fmt: skip
    return [rel for rel in map(disk.rel, done) if rel is not None]


def _moved(top: Path, old: str, new: str, dirty: set[str]) -> list[tuple[str, str, str, str, str]]:
    """The entries the move changed that were clean before the call and, when the move
    added them, that git does not ignore."""
    out = git(top, "diff-tree", "-r", "-z", "--no-renames", "--no-abbrev", old, new)
    entries = [e for e in _entries(out or b"") if e[4] not in dirty]
    ignored = git_ignored(top, [e[4] for e in entries if e[2] in _NULL])
    return [e for e in entries if e[4] not in ignored]


def _as_git_wrote(
    disk: Disk,
    real: str,
    rel: str,
    modes: tuple[str, str],
    now: str,
    policy: protected_set.PolicyPaths,
) -> bool:
    """Whether the workspace file ``rel`` is a plain file still as blob ``now`` has it,
    reached through no link from the workspace's real path ``real`` (protected paths are
    the protected set's)."""
    if protected_set.is_protected_rel(rel, policy) or not set(modes) <= _FILES | {"000000"}:
        return False
    if os.path.realpath(os.path.join(real, rel)) != os.path.join(real, rel):
        return False  # reached through a link the call made: not git's file
    return disk.oid(rel, len(now)) == (None if now in _NULL else now)


def _prune_empty(root: Path, folder: Path) -> None:
    """Removes the folders a removed file leaves empty, up to the workspace (git does
    not keep empty folders, so the merge made them)."""
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _entries(out: bytes) -> list[tuple[str, str, str, str, str]]:
    """(old mode, new mode, old blob, new blob, top-relative path) of each ``diff-tree
    -r -z`` entry."""
    tokens = out.decode("utf-8", "surrogateescape").split("\0")
    found = []
    for meta, path in zip(tokens[::2], tokens[1::2], strict=False):
        fields = meta.split(" ")
        if meta.startswith(":") and len(fields) >= 5:
            found.append((fields[0][1:], fields[1], fields[2], fields[3], path))
    return found
