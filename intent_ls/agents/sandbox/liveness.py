"""Whether any process a session's commands started is still alive, whatever it did to
hide: the question the after-tool event asks to know whether a change made between
two calls can be the session's (:mod:`intent_ls.agents.effects.lingering`).

Every sandboxed command runs in a user namespace of its own, made by bubblewrap. A
process can never leave it: joining another user namespace takes ``CAP_SYS_ADMIN`` in
that namespace, and a command has no capabilities; a namespace it makes itself
(``unshare -U``) is a child of its own. So a process is the command's exactly when its
user namespace is the command's or a descendant of it — whatever it closed, however
often it forked, ``setsid`` or not. A lock inherited by the command's processes would
tell the same for an honest command, and nothing for one that closes the descriptor.

bubblewrap says which process it started (``--info-fd``) and, once it has made the
sandbox, waits (``--block-fd``) until told to go on; meanwhile the launcher notes that
process's user namespace (one small file per command, in the workspace's effects store,
which no command can write), while bubblewrap mounts. Nothing of the command has run
before its namespace is noted.

A namespace is known by its 64-bit id where the kernel gives one (``NS_GET_ID``, Linux
6.18), never by its inode number alone: the kernel gives a freed namespace's number to
the next namespace made anywhere, and a command that ended would look alive while
another session's ran. Before 6.18 the command's mount namespace id stands in
(``NS_GET_MNTNS_ID``, Linux 6.8), which a process that makes a mount namespace of its
own leaves. Before Linux 6.12 the sandbox has a PID namespace, and nothing outlives the
command at all.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from intent_ls.common.store_paths import store_dir

#: ioctls on a namespace's file (``linux/nsfs.h``): its parent, as a new descriptor;
#: a mount namespace's 64-bit id (Linux 6.8); any namespace's 64-bit id (Linux 6.18).
#: The ids are never reused, where inode numbers are, at once, by the next namespace
#: made anywhere on the machine.
_NS_GET_PARENT = 0xB702
_NS_GET_MNTNS_ID = 0x8008B705
_NS_GET_ID = 0x8008B70D
_RECORDS = "alive"
_INFO_LIMIT = 64 * 1024


def records_dir(root: Path) -> Path:
    """The notes of the workspace's commands (by its real path: the launcher and the
    hooks may be given it through different links)."""
    return store_dir(Path(os.path.realpath(root))) / _RECORDS


class Watch(NamedTuple):
    """The pipes bubblewrap reports on and waits on, for one command."""

    #: Where the command's record goes, and whose command it is (a session id, or the
    #: workspace for agents whose launcher does not know the session).
    folder: str
    key: str
    #: bubblewrap's ends: it writes its JSON info to one and reads from the other.
    info_w: int
    block_r: int
    #: The launcher's ends.
    info_r: int
    block_w: int

    def argv(self) -> list[str]:
        return ["--info-fd", str(self.info_w), "--block-fd", str(self.block_r)]

    def for_bwrap(self) -> tuple[int, int]:
        return self.info_w, self.block_r


def watch(root: str = "", key: str = "") -> Watch:
    """Pipes for one command of the workspace ``root`` (none: the command is not noted,
    as bubblewrap's probe is not)."""
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    folder = str(records_dir(Path(root))) if root else ""
    return Watch(folder, key, info_w, block_r, info_r, block_w)


def close_all(found: Watch) -> None:
    """When bubblewrap could not be started at all."""
    close_bwrap_ends(found)
    for fd in (found.info_r, found.block_w):
        with contextlib.suppress(OSError):
            os.close(fd)


def close_bwrap_ends(found: Watch) -> None:
    """In the launcher once bubblewrap holds its ends (so its exit is seen as EOF)."""
    for fd in found.for_bwrap():
        with contextlib.suppress(OSError):
            os.close(fd)


def release(found: Watch, before_go: Callable[[int], None] | None = None) -> None:
    """Reads which process bubblewrap started, notes its user namespace and lets it go
    on, all while bubblewrap mounts: the note is there before anything of the command
    runs, even where the caller ends first (a helper of a launcher that became
    bubblewrap). ``before_go`` is given the held process's pid. An early EOF (bubblewrap
    failed before starting it) ends this quietly: bubblewrap has said why."""
    try:
        pid = _child_pid(found.info_r)
        if pid is None:
            return
        user = _identity(pid)
        if user is not None:
            _note(found, user, pid)
        if before_go is not None:
            before_go(pid)
    except OSError as exc:
        _say(f"the sandbox's command could not be watched ({exc})")
    finally:
        with contextlib.suppress(OSError):
            os.write(found.block_w, b"1")
        for fd in (found.info_r, found.block_w):
            with contextlib.suppress(OSError):
                os.close(fd)


def _say(text: str) -> None:
    with contextlib.suppress(OSError):
        os.write(2, f"intent-ls: {text}\n".encode())


def release_from_helper(found: Watch) -> None:
    """:func:`release`, from a process of its own, for a launcher that becomes
    bubblewrap (``exec``): forked twice, so nothing waits for it."""
    first = os.fork()
    if first:
        os.waitpid(first, 0)
        with contextlib.suppress(OSError):
            os.close(found.info_r)
            os.close(found.block_w)
        return
    try:
        if os.fork() == 0:
            close_bwrap_ends(found)
            release(found)
    finally:
        os._exit(0)


def _child_pid(fd: int) -> int | None:
    data = b""
    while b"}" not in data and len(data) < _INFO_LIMIT:
        chunk = os.read(fd, 4096)
        if not chunk:
            return None
        data += chunk
    try:
        pid = json.loads(data).get("child-pid")
    except (ValueError, AttributeError):
        return None
    return pid if isinstance(pid, int) and pid > 0 else None


class Identity(NamedTuple):
    """A command's namespaces: its user namespace's inode, and the ids the kernel never
    reuses (None where it is too old to give them)."""

    user: int
    user_id: int | None
    mnt_id: int | None

    def name(self) -> str:
        if self.user_id is not None:
            return f"u{self.user_id}"
        return f"m{self.mnt_id}" if self.mnt_id is not None else f"i{self.user}"


def _identity(pid: int) -> Identity | None:
    try:
        fd = os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        user, user_id = os.fstat(fd).st_ino, _ns_id(fd, _NS_GET_ID)
    finally:
        os.close(fd)
    return Identity(user, user_id, _mnt_id(pid))


def _ns_id(fd: int, request: int) -> int | None:
    import fcntl
    import struct

    try:
        value: int = struct.unpack("Q", fcntl.ioctl(fd, request, bytes(8)))[0]
    except OSError:
        return None
    return value


def _mnt_id(pid: int | str) -> int | None:
    try:
        fd = os.open(f"/proc/{pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return _ns_id(fd, _NS_GET_MNTNS_ID)
    finally:
        os.close(fd)


def _note(found: Watch, user: Identity, pid: int) -> None:
    if not found.folder:
        return
    record = json.dumps({"key": found.key, "pid": pid, **user._asdict()}).encode()
    path = os.path.join(found.folder, f"{user.name()}.json")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        try:
            fd = os.open(path, flags, 0o600)
        except FileNotFoundError:
            os.makedirs(found.folder, mode=0o700, exist_ok=True)
            fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, record)
        finally:
            os.close(fd)
    except OSError as exc:  # the command still runs, bounded: only its note is missing
        _say(f"the sandbox could not note its command ({exc})")


def _ns_inode(link: str) -> int | None:
    try:
        text = os.readlink(link)
    except OSError:
        return None
    inside = text[text.find("[") + 1 : text.rfind("]")]
    return int(inside) if inside.isdigit() else None


class _Noted(NamedTuple):
    path: str
    key: object
    identity: Identity


def _noted(root: Path) -> list[_Noted]:
    """The commands noted for the workspace."""
    folder = records_dir(root)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        path = folder / name
        try:
            record = json.loads(path.read_bytes())
            identity = Identity(record["user"], record.get("user_id"), record.get("mnt_id"))
        except (OSError, ValueError, TypeError, KeyError):
            continue
        if isinstance(identity.user, int):
            found.append(_Noted(str(path), record.get("key"), identity))
    return found


def _lineage(pid: str) -> tuple[list[int], list[int]]:
    """The inodes and ids of the process's user namespace and of each it descends from."""
    import fcntl

    inodes: list[int] = []
    ids: list[int] = []
    try:
        fd = os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return inodes, ids
    try:
        while True:
            inodes.append(os.fstat(fd).st_ino)
            found = _ns_id(fd, _NS_GET_ID)
            if found is not None:
                ids.append(found)
            try:
                parent = fcntl.ioctl(fd, _NS_GET_PARENT)
            except OSError:
                return inodes, ids  # the initial namespace, or one above this process's
            os.close(fd)
            fd = parent
    finally:
        os.close(fd)


def _matches(note: Identity, pid: str, inodes: list[int], ids: list[int]) -> bool:
    """Whether the process is the noted command's: by the user namespace's id, which is
    never reused (Linux 6.18); else by its mount namespace's id (Linux 6.8: a process
    that makes a mount namespace of its own is then not found); else by inode."""
    if note.user_id is not None:
        return note.user_id in ids
    if note.mnt_id is not None:
        return _mnt_id(pid) == note.mnt_id
    return note.user in inodes


def _scan(root: Path, prune: bool = True) -> tuple[list[_Noted], dict[str, list[int]]]:
    """The noted commands, and {note's path: pids of its processes}; with ``prune``, the
    notes of commands with none left are removed."""
    noted = _noted(root)
    found: dict[str, list[int]] = {}
    if not noted:
        return noted, found
    own = _ns_inode("/proc/self/ns/user")
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        inode = _ns_inode(f"/proc/{pid}/ns/user")
        if inode is None or inode == own or not _running(int(pid)):
            continue
        inodes, ids = _lineage(pid)
        for note in noted:
            if _matches(note.identity, pid, inodes, ids):
                found.setdefault(note.path, []).append(int(pid))
    for note in noted:
        if prune and note.path not in found:
            with contextlib.suppress(OSError):
                os.unlink(note.path)
    return noted, found


def living(root: Path, keys: frozenset[str]) -> bool:
    """Whether a process of a command run for ``keys`` is alive; the notes of commands
    none of whose processes are alive (any key's) are removed."""
    noted, found = _scan(root)
    return any(note.key in keys for note in noted if note.path in found)


def left_running(root: Path) -> dict[str, list[int]]:
    """{whose commands they were (a session id, or the workspace): the pids of their
    processes still alive}, for ``doctor``, which changes nothing: no note is removed."""
    noted, found = _scan(root, prune=False)
    out: dict[str, set[int]] = {}
    for note in noted:
        if note.path in found:
            out.setdefault(str(note.key), set()).update(found[note.path])
    return {key: sorted(pids) for key, pids in sorted(out.items())}


#: How long stopped processes get to end on SIGTERM before SIGKILL.
STOP_GRACE_SECONDS = 2.0


def stop(root: Path) -> int:
    """Ends every process the workspace's sandboxed commands left running (SIGTERM,
    then SIGKILL after :data:`STOP_GRACE_SECONDS`); how many there were. A later command
    cannot signal them itself: each command's signals stay inside its own sandbox."""
    import signal
    import time

    _, found = _scan(root)
    pids = sorted({pid for group in found.values() for pid in group})
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    while time.monotonic() < deadline and any(_running(pid) for pid in pids):
        time.sleep(0.05)
    for pid in pids:
        if _running(pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    _scan(root)  # forget the commands that have nothing left
    return len(pids)


def _running(pid: int) -> bool:
    """Alive and not a zombie (one that has ended and waits for its parent to reap it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] not in (b"Z", b"X")
