"""What git did to the ledger's copy in the sandbox, judged after the call.

A command in the sandbox writes the ledger only through its own copy
(:mod:`intent_ls.agents.sandbox.ledger_copy`). When it has ended (nothing it started
holds the copy's lock any more), its copy is taken into the workspace only as one of
two moves git makes with records, and never loses or invents one:

- **records parked in a stash**: the copy is the ledger cut back to one of its earlier
  lengths (``git stash`` resets it to ``HEAD``'s), and the stash git keeps holds the
  ledger whole. The ledger's digest is remembered as parked.
- **parked records back**: the copy is the ledger with lines after it, and is exactly a
  ledger this workspace parked (``git stash pop`` or ``apply`` of that stash).

The ledger's map (``intent_map.md``, derived from it and tracked beside it) is taken
with them only as the commit git took the records from holds it.

Anything else (``git checkout -- ledger`` or ``reset --hard`` dropping records that no
stash holds, records from a commit or stash the agent made, ``echo >>``, conflict
markers) is refused: the ledger stays as it is and the agent is told why; a stash the
call popped whose ledger was refused goes back on the stash list, with its records.
Only a stash intent-ls saw parked can bring records back, so a stash the agent forged
(``git stash store`` of a commit it wrote) brings none. New files the command made in
the sidecar are dropped with the copy.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import NamedTuple

from intent_ls.agents.effects.git import git, git_top
from intent_ls.agents.effects.git_objects import stash_tip
from intent_ls.agents.effects.protected_set import LEDGER as LEDGER_REL
from intent_ls.agents.sandbox.ledger_copy import LEDGER_NAME, MAP_NAME, SIDECAR, calls_dir

#: How much larger than the ledger its copy may be (records a stash brings back).
MAX_GROWTH = 64 * 1024 * 1024
#: The parked ledgers remembered, newest last (a stash list longer than this is rare).
MAX_PARKED = 256
_PARKED_FILE = "parked-ledgers"

SAME = "same"
PARKED = "parked"
RETURNED = "returned"
REFUSED = "refused"


class Judged(NamedTuple):
    outcome: str
    #: The digest to remember as parked (for :data:`PARKED`).
    park: str | None = None


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def judge(
    ledger: bytes | None,
    copy: bytes | None,
    stashed: Collection[bytes],
    parked: Collection[str],
) -> Judged:
    """The ledger on disk (None: absent), its copy as the command left it (None:
    removed), the ledgers the stash holds now, the digests parked before."""
    if copy == ledger:
        return Judged(SAME)
    now, new = ledger or b"", copy or b""
    whole_lines = not new or new.endswith(b"\n")
    if whole_lines and now.startswith(new) and now in stashed:
        return Judged(PARKED, digest(now))
    if copy is not None and whole_lines and new.startswith(now) and digest(new) in parked:
        return Judged(RETURNED)
    return Judged(REFUSED)


def finished(root: Path) -> Iterator[Path]:
    """Each command's copy folder that nothing it started holds any more."""
    try:
        names = sorted(os.listdir(calls_dir(root)))
    except OSError:
        return
    for name in names:
        folder = calls_dir(root) / name
        try:
            fd = os.open(folder / "lock", os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # still running: a later after-tool event judges it
        try:
            yield folder
        finally:
            os.close(fd)


class Settled(NamedTuple):
    #: Changes not kept, for the agent, with the files put back.
    told: tuple[str, ...] = ()
    #: Records parked or back, for the agent.
    noted: tuple[str, ...] = ()
    #: Workspace-relative files a stash took back to ``HEAD``'s, their records parked
    #: with them: not judged or recorded again as the call's changes.
    stashed: frozenset[str] = frozenset()


def settle(root: Path, stash_before: str | None = None) -> Settled:
    """Judges and removes every finished copy. ``stash_before``: the newest stash before
    the call, put back when the call popped it and its ledger was not taken (the stash
    then still holds the records)."""
    told: list[str] = []
    noted: list[str] = []
    stashed: set[str] = set()
    for folder in finished(root):
        one = _settle_one(root, folder, stash_before)
        _remove(folder)
        told += one.told
        noted += one.noted
        stashed |= one.stashed
    return Settled(tuple(told), tuple(noted), frozenset(stashed))


def _settle_one(root: Path, folder: Path, stash_before: str | None) -> Settled:
    upper = folder / "upper"
    try:
        names = sorted(os.listdir(upper))
    except OSError:
        return Settled()
    ledger, tree = (Settled(), "")
    if LEDGER_NAME in names:
        ledger, tree = _ledger(root, upper / LEDGER_NAME, stash_before)
    told = [
        f"{SIDECAR}/{name}: made or changed in the sandbox's copy of {SIDECAR}/, not kept"
        for name in names
        if name != LEDGER_NAME and not (name == MAP_NAME and _map(root, upper / name, tree))
    ]
    return Settled((*told, *ledger.told), ledger.noted, ledger.stashed)


def _map(root: Path, copy_path: Path, tree: str) -> bool:
    """Whether the ledger's map, derived from it, was taken as git wrote it along with
    the ledger's records: only as the commit git took the records from holds it."""
    copy = _copy_of(copy_path, root / SIDECAR / MAP_NAME)
    top = git_top(root)
    if not tree or copy is False or top is None:
        return False
    if copy != git(top, "cat-file", "blob", f"{tree}:{_top_rel(top, root / SIDECAR / MAP_NAME)}"):
        return False
    _write(root, root / SIDECAR / MAP_NAME, copy)
    return True


def _ledger(root: Path, copy_path: Path, stash_before: str | None) -> tuple[Settled, str]:
    """What the copy's ledger settled as, and the commit whose files git wrote with it
    ("" when none was taken)."""
    copy = _copy_of(copy_path, root / LEDGER_REL)
    if copy is False:
        told = f"{LEDGER_REL}: the command left no file git could have written there; not kept"
        return Settled((told,)), ""
    from intent_ls.ledger.store import Ledger

    path = root / LEDGER_REL
    with Ledger(path).locked():
        ledger = _read(path)
        parked = _parked(root)
        cut = copy != ledger and (copy is None or (ledger or b"").startswith(copy))
        judged = judge(ledger, copy, _stashed(root) if cut else (), parked)
        if judged.outcome == SAME:
            return Settled(), ""
        if judged.outcome == REFUSED:
            return Settled((_REFUSED, *_keep_stash(root, stash_before, copy))), ""
        _write(root, path, copy)
        if judged.park is not None:
            top = git_top(root)
            parked[judged.park] = (stash_tip(top) if top is not None else None) or ""
            _remember(root, parked)
    if judged.park is not None:
        said = f"{LEDGER_REL}: its records since the last commit went into the stash with the work"
        stash = parked[judged.park]
        return Settled(noted=(said,), stashed=_as_in(root, stash, "^1")), f"{stash}^1"
    said = f"{LEDGER_REL}: the records parked in the stash are back"
    stash = parked[digest(copy or b"")]
    return Settled(noted=(said,), stashed=_as_in(root, stash, "")), stash


_REFUSED = (
    f"{LEDGER_REL}: git's change to it was not kept (records leave it only into a "
    "stash, and come back only from a stash they went into); it is as it was, so git "
    "may now show it modified"
)


def _copy_of(path: Path, beside: Path) -> bytes | bool | None:
    """The copy's bytes; None for overlayfs's mark of a removed file; False for
    anything else that is not a regular file, or one far larger than the file it copies
    (``beside``), which no move of git's makes and which is not read into memory."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > _size(beside) + MAX_GROWTH:
        return False
    try:
        return path.read_bytes()
    except OSError:
        return False


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _stashed(root: Path) -> list[bytes]:
    """The ledger as the newest stash holds it: in its tree, or in its untracked files'
    commit (``stash -u``)."""
    top = git_top(root)
    if top is None:
        return []
    rel = _top_rel(top, root / LEDGER_REL)
    found = []
    for commit in ("refs/stash", "refs/stash^3"):
        data = git(top, "cat-file", "blob", f"{commit}:{rel}")
        if data is not None:
            found.append(data)
    return found


def _keep_stash(root: Path, stash: str | None, copy: bytes | None) -> tuple[str, ...]:
    """Puts ``stash`` back on the stash list when the call popped it (it is no longer
    listed) and its ledger is the one not taken: its records are not lost with it."""
    top = git_top(root)
    if top is None or stash is None or copy is None:
        return ()
    rel = _top_rel(top, root / LEDGER_REL)
    listed = _names(git(top, "log", "-g", "-z", "--format=%H", "refs/stash"))
    if stash in listed or git(top, "cat-file", "blob", f"{stash}:{rel}") != copy:
        return ()
    subject = (git(top, "log", "-1", "--format=%s", stash) or b"").decode().strip()
    if git(top, "stash", "store", "-m", subject or "kept by intent-ls", stash) is None:
        return ()
    return (f"the stash it came from ({stash[:12]}) is on the stash list again",)


def _top_rel(top: Path, path: Path) -> str:
    """``path`` as git names it in the repository at ``top``."""
    return os.path.relpath(path, top).replace(os.sep, "/")


def _as_in(root: Path, stash: str, side: str) -> frozenset[str]:
    """The workspace's files ``stash`` (a stash commit) holds changes of that are now as
    its base has them (``side`` ``^1``: the stash took them back) or as it has them
    (``""``: the stash brought them back): their records went or came with the ledger."""
    top = git_top(root)
    if top is None or not stash:
        return frozenset()
    names = _names(git(top, "diff", "--name-only", "-z", f"{stash}^1", stash))
    untracked = _names(git(top, "ls-tree", "-r", "--name-only", "-z", f"{stash}^3"))
    tree = f"{stash}{side}" if side else stash
    differ = set()
    if names:  # file names as they are, never as globs
        out = git(top, "--literal-pathspecs", "diff", "--name-only", "-z", tree, "--", *names)
        differ = _names(out)
    found = set(names - differ)
    for name in untracked:
        if os.path.lexists(top / name) == (not side):
            found.add(name)
    rels = (_top_rel(root, top / n) for n in found)
    return frozenset(r for r in rels if not r.startswith("../"))


def _names(out: bytes | None) -> set[str]:
    return {n for n in (out or b"").decode("utf-8", "surrogateescape").split("\0") if n}


def _write(root: Path, path: Path, copy: bytes | None) -> None:
    from intent_ls.common.safe_io import write_atomic

    if copy is None:
        path.unlink(missing_ok=True)
    else:
        write_atomic(path, copy, anchor=root, fsync=True)


def _parked_path(root: Path) -> Path:
    return calls_dir(root).parent / _PARKED_FILE


def _parked(root: Path) -> dict[str, str]:
    """Each parked ledger's digest, and the stash commit it went into."""
    try:
        lines = _parked_path(root).read_text().splitlines()
    except OSError:
        return {}
    return dict(line.split(" ", 1) for line in lines if " " in line)


def _remember(root: Path, parked: dict[str, str]) -> None:
    from intent_ls.common.safe_io import write_atomic

    kept = list(parked.items())[-MAX_PARKED:]
    write_atomic(_parked_path(root), "".join(f"{d} {c}\n" for d, c in kept).encode())


def _remove(folder: Path) -> None:
    """The copy folder, with overlayfs's own work folder (made without permissions)."""
    import shutil

    with contextlib.suppress(OSError):
        os.chmod(folder / "work" / "work", 0o700)
    shutil.rmtree(folder, ignore_errors=True)
