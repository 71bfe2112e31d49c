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

from intent_ls.agents.effects import protected_set
from intent_ls.agents.effects.git import git, git_ignored, git_top
from intent_ls.agents.effects.git_objects import Disk, Forged, read_ref, write_blob
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
        if rel is None or not _as_git_wrote(disk, rel, (old_mode, new_mode), now, policy):
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
    disk: Disk, rel: str, modes: tuple[str, str], now: str, policy: protected_set.PolicyPaths
) -> bool:
    """Whether the workspace file ``rel`` is a plain file still as blob ``now`` has it,
    reached through no link (protected paths are the protected set's)."""
    if protected_set.is_protected_rel(rel, policy) or not set(modes) <= _FILES | {"000000"}:
        return False
    real = os.path.realpath(disk.root)
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
