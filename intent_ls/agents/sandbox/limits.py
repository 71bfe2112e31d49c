"""How many tasks (processes and threads) a sandboxed command may run at once, so that a
fork bomb — in shell, or in interpreter code no classifier reads — cannot take the
machine down.

For a user other than root, ``RLIMIT_NPROC`` set *inside* the command's user namespace
counts that namespace's tasks only (the kernel keeps the count per user namespace since
Linux 5.14): the user's other processes — an editor's hundreds of threads — never count
against it, and the command cannot raise it again (that needs ``CAP_SYS_RESOURCE`` in
the initial namespace). Set before bubblewrap made the namespace, it would instead cap
every process the user has. Root is exempt from ``RLIMIT_NPROC`` in any namespace;
there one ``pids`` cgroup per session and workspace (whose policy sets its limit)
bounds the tasks, where the cgroup v1 ``pids`` hierarchy is writable (containers on
cgroup v1 hosts). On cgroup v2 a new cgroup with the ``pids`` controller would mean
moving the agent's own processes out of theirs, so root there has no limit, and
``doctor`` says so.
"""

from __future__ import annotations

import os

#: Enough for parallel builds and test runners (``make -j``, a JVM's threads, a browser
#: under test), far below what exhausts a machine's process table.
MAX_TASKS = 4096
_CGROUP_PREFIX = "intent-ls-"
#: Joins of a session's cgroup tried while other sessions' clean-ups remove it.
_JOIN_TRIES = 3


def bounded(bash: str, script: str, max_tasks: int) -> list[str]:
    """``bash -c SCRIPT`` that first lowers ``RLIMIT_NPROC`` inside the sandbox, where
    bubblewrap has made the user namespace: in the command's own shell, on the script's
    first line (its line numbers in bash's messages stay), so no second shell starts. A
    limit already lower (the user's own hard limit) stays."""
    return [bash, "-c", f"ulimit -Su {max_tasks} -Hu {max_tasks} 2>/dev/null; {script}"]


def pids_hierarchy(mountinfo: str, cgroups: str) -> str | None:
    """The folder of this process's cgroup in the cgroup v1 ``pids`` hierarchy, from
    ``/proc/self/mountinfo`` and ``/proc/self/cgroup``; None without one."""
    own = None
    for line in cgroups.splitlines():
        _, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if "pids" in controllers.split(","):
            own = path
    if own is None:
        return None
    for line in mountinfo.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        fstype, _, options = line.split(" - ", 1)[1].split(" ")[:3]
        mount_root, mount_point = fields[3], fields[4]
        if fstype != "cgroup" or "pids" not in options.split(","):
            continue
        if own == mount_root or own.startswith(mount_root.rstrip("/") + "/"):
            inner = own[len(mount_root) :].lstrip("/")
            return os.path.join(mount_point, inner) if inner else mount_point
    return None


def writable_hierarchy() -> str | None:
    """This process's folder in a cgroup v1 ``pids`` hierarchy it may write, or None."""
    try:
        with open("/proc/self/mountinfo") as fh:
            mountinfo = fh.read()
        with open("/proc/self/cgroup") as fh:
            cgroups = fh.read()
    except OSError:
        return None
    found = pids_hierarchy(mountinfo, cgroups)
    return found if found is not None and os.access(found, os.W_OK) else None


def session_cgroup(key_digest: str, max_tasks: int) -> str:
    """As root, the ``cgroup.procs`` file of this session's ``pids`` cgroup (made, with
    its limit, on the session's first command); "" where none can be made. Making one
    removes the sessions' cgroups that no process is in any more."""
    parent = writable_hierarchy() if os.geteuid() == 0 else None
    if parent is None:
        return ""
    folder = os.path.join(parent, _CGROUP_PREFIX + key_digest)
    try:
        if not os.path.isdir(folder):
            _remove_empty(parent)
        _make(folder, max_tasks)
    except OSError:
        return ""
    return os.path.join(folder, "cgroup.procs")


def _make(folder: str, max_tasks: int) -> None:
    if not os.path.isdir(folder):
        os.mkdir(folder)
    with open(os.path.join(folder, "pids.max"), "w") as fh:
        fh.write(str(max_tasks))


def _remove_empty(parent: str) -> None:
    with os.scandir(parent) as entries:
        ours = [e.path for e in entries if e.name.startswith(_CGROUP_PREFIX) and e.is_dir()]
    for path in ours:
        try:
            os.rmdir(path)  # refused while a process is in it
        except OSError:
            continue


def join(procs: str, max_tasks: int, pids: tuple[int, ...] = ()) -> None:
    """Puts ``pids`` (by default the calling process, about to become bubblewrap) in the
    session's cgroup; every process they start is counted there. The launcher that waits
    moves bubblewrap and the command's first process while that is held
    (:mod:`.liveness`), before it has started anything.

    Until a process is in it, another session's first command may remove the cgroup as
    empty: it is made again, with its limit, and joined.
    """
    for _ in range(_JOIN_TRIES):
        if not procs:
            return
        try:
            for pid in pids or (os.getpid(),):
                with open(procs, "w") as fh:
                    fh.write(str(pid))
            return
        except FileNotFoundError:
            procs = _remade(procs, max_tasks)
        except OSError:
            return  # the command runs without the limit, as root on cgroup v2 does


def _remade(procs: str, max_tasks: int) -> str:
    """``procs`` once its cgroup is made again, "" where it cannot be."""
    try:
        _make(os.path.dirname(procs), max_tasks)
    except OSError:
        return ""
    return procs
