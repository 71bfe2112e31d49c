"""What a sandboxed command may write, as one value, and the bubblewrap arguments that
enforce it. Pure: :mod:`.gather` finds what exists on this machine.

The order of the mounts is the policy. The whole file system goes in read-only first;
then a private ``/tmp`` and an empty ``/dev``; the host's daemon sockets are masked;
the writable trees (the workspace, the caches) are bound over it; and the protected
paths inside them are bound read-only last, so nothing a writable tree holds can
reopen them (the sidecar's ledger is then given to git as a copy, :mod:`.ledger_copy`,
and the sidecar's other entries are bound read-only over it once more). Whatever was
not named stays read-only by construction — the hook's installation, the dotfiles and
agents' settings in ``$HOME``, git's global config, the agents' rule files, shell
start-up files.
"""

from __future__ import annotations

from typing import NamedTuple

from intent_ls.agents.sandbox.limits import MAX_TASKS, bounded

#: Development caches under ``$HOME`` that package managers and build tools write to
#: during ordinary work (``npm install``, ``pip install``, ``cargo build``, ``go test``,
#: Maven, Gradle, pnpm, Yarn, Bun). More come from the spec's
#: ``policy.agentWritablePaths``.
HOME_CACHES = (
    ".cache",
    ".npm",
    ".cargo/registry",
    ".cargo/git",
    "go/pkg/mod",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    ".pnpm-store",
    ".local/share/pnpm",
    ".yarn/berry/cache",
    ".bun/install/cache",
)
#: Caches whose files are hard links into installed programs (uv installs tools and
#: environments by linking from its cache on Linux), so a write into the cache is a write
#: into the program — intent-ls itself, installed with ``uv tool``: read-only, and the
#: command's uv uses a cache of its own in the private ``/tmp`` (:data:`SET_VARS`).
LINKED_CACHES = (".cache/uv",)
SET_VARS = (("TMPDIR", "/tmp"), ("UV_CACHE_DIR", "/tmp/.uv-cache"))
#: Made when missing (as the tools would on first use), so a first ``npm install`` or
#: ``pip install`` does not fail on a read-only ``$HOME``.
CREATED_CACHES = (".cache", ".npm")
#: Host daemons a command could hand work to, outside any sandbox: masked with an
#: empty directory (or ``/dev/null`` for a socket file) where they exist. A private
#: ``/tmp`` already hides tmux's and X11's sockets.
DAEMON_DIRS = (
    "/run/docker",
    "/run/containerd",
    "/run/podman",
    "/run/dbus",
    "/run/screen",
    "/run/tmux",
    "/var/run/screen",
)
DAEMON_SOCKETS = (
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/systemd/private",
    "/run/systemd/io.systemd.ManagedOOM",
)
#: Variables that point a command at a host daemon.
DAEMON_VARS = ("TMUX", "TMUX_PANE", "STY", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST")


class LedgerCopy(NamedTuple):
    """The sidecar as an overlay for one command (:mod:`.ledger_copy`)."""

    #: The workspace's ``.orchestration/``.
    sidecar: str
    #: Where the command's writes there go, and the overlay's own work folder.
    upper: str
    work: str
    #: The sidecar's existing entries other than the ledger, bound read-only again.
    kept: tuple[str, ...]
    #: The descriptor holding the copy folder's lock, for the command to inherit.
    lock_fd: int


class Plan(NamedTuple):
    """One command's sandbox (a ``NamedTuple`` rather than an attrs class: the launcher
    builds it before every shell command, and importing attrs would cost it more than
    bubblewrap's own set-up)."""

    #: The workspace.
    root: str
    #: Where the command starts.
    cwd: str
    #: The host directory that is the command's ``/tmp``.
    tmp: str
    #: Existing trees outside the workspace the command may write (caches).
    writable: tuple[str, ...] = ()
    #: Existing paths inside writable trees that stay read-only (protected).
    readonly: tuple[str, ...] = ()
    #: Existing host paths under ``/tmp`` the command reads (``$HOME`` in a test).
    visible_tmp: tuple[str, ...] = ()
    #: Existing host files the command writes although they are elsewhere read-only
    #: (an agent's own out-file, such as Gemini CLI's background-jobs list).
    out_files: tuple[str, ...] = ()
    masked_dirs: tuple[str, ...] = ()
    masked_files: tuple[str, ...] = ()
    #: Without Landlock scopes, a PID namespace keeps signals inside (and ends what
    #: the command leaves running when it exits).
    pid_namespace: bool = False
    #: How many tasks the command may run at once (:mod:`.limits`).
    max_tasks: int = MAX_TASKS
    #: As root, the ``cgroup.procs`` of the session's ``pids`` cgroup ("" for none).
    tasks_cgroup: str = ""
    #: The ledger git may rewrite, in a copy (None: the sidecar is read-only whole).
    ledger_copy: LedgerCopy | None = None
    #: Whose command it is, for :mod:`.liveness` (a session id, or the workspace).
    key: str = ""


def argv(
    bwrap: str, plan: Plan, bash: str, script: str, watched: tuple[str, ...] = ()
) -> list[str]:
    """bubblewrap's arguments; ``watched``, those that report the command's process
    and hold it until its namespace is noted (:mod:`.liveness`)."""
    out = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev"]
    if plan.pid_namespace:
        out += ["--unshare-pid", "--proc", "/proc"]
    out += ["--bind", plan.tmp, "/tmp"]
    for path in plan.visible_tmp:
        out += ["--ro-bind", path, path]
    for path in plan.masked_dirs:
        out += ["--tmpfs", path, "--remount-ro", path]
    for path in plan.masked_files:
        out += ["--ro-bind", "/dev/null", path]
    for path in (plan.root, *plan.writable, *plan.out_files):
        out += ["--bind", path, path]
    for path in plan.readonly:
        out += ["--ro-bind", path, path]
    copy = plan.ledger_copy
    if copy is not None:
        out += ["--overlay-src", copy.sidecar, "--overlay", copy.upper, copy.work, copy.sidecar]
        for path in copy.kept:
            out += ["--ro-bind", path, path]
    for name in DAEMON_VARS:
        out += ["--unsetenv", name]
    for name, value in SET_VARS:
        out += ["--setenv", name, value]
    out += [
        "--unshare-user",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--cap-drop",
        "ALL",
        "--new-session",
        *watched,
        "--chdir",
        plan.cwd,
        "--",
        *bounded(bash, script, plan.max_tasks),
    ]
    return out
