"""Runs a command in a planned sandbox: as a child that the caller waits for (its
signals passed on), or in place of the caller (``exec``)."""

from __future__ import annotations

import os
import signal
import subprocess

from intent_ls.agents.sandbox import landlock, limits, liveness
from intent_ls.agents.sandbox.plan import Plan, argv

#: Signals an agent sends to stop a command; passed on to the sandbox.
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)


def needs_pid_namespace() -> bool:
    """Without Landlock scopes (Linux < 6.12) only a PID namespace keeps a command's
    signals from reaching the agent and the hook."""
    return landlock.abi() < landlock.SCOPES_ABI


def _before_exec(plan: Plan) -> None:
    """In the process about to become bubblewrap: the session's cgroup, then the
    Landlock scopes (where no PID namespace stands in for them)."""
    limits.join(plan.tasks_cgroup, plan.max_tasks)
    if not plan.pid_namespace:
        landlock.scope_self()


def _hold(plan: Plan) -> tuple[int, ...]:
    """The lock on the command's ledger copy, for all it starts to inherit."""
    if plan.ledger_copy is None:
        return ()
    os.set_inheritable(plan.ledger_copy.lock_fd, True)
    return (plan.ledger_copy.lock_fd,)


def wait_confined(bwrap: str, plan: Plan, bash: str, script: str) -> int:
    """The command's exit status (128 + N when signal N ended it).

    No code runs between the fork and bubblewrap's ``exec`` (a ``preexec_fn`` would make
    Python fork its whole process rather than ``vfork``, ~5 ms): the launcher takes the
    Landlock scopes itself, which bubblewrap then inherits, and moves bubblewrap and the
    command's first process into the session's cgroup while the command is held."""
    held = _hold(plan)
    watched = liveness.watch(plan.root, plan.key)
    if not plan.pid_namespace:
        landlock.scope_self()
    try:
        child = subprocess.Popen(
            argv(bwrap, plan, bash, script, tuple(watched.argv())),
            close_fds=True,
            pass_fds=(*held, *watched.for_bwrap()),
        )
    except OSError:
        liveness.close_all(watched)
        raise
    finally:
        for fd in held:  # the sandbox holds the lock now, for as long as any of it lives
            os.close(fd)
    liveness.close_bwrap_ends(watched)

    def bounded(pid: int) -> None:
        limits.join(plan.tasks_cgroup, plan.max_tasks, (child.pid, pid))

    liveness.release(watched, before_go=bounded)

    def forward(signum: int, _frame: object) -> None:
        child.send_signal(signum)

    for signum in FORWARDED:
        signal.signal(signum, forward)
    status = child.wait()
    return 128 - status if status < 0 else status


def exec_confined(bwrap: str, plan: Plan, bash: str, script: str) -> None:
    """Becomes the sandbox; returns only when ``exec`` failed (OSError raised)."""
    watched = liveness.watch(plan.root, plan.key)
    liveness.release_from_helper(watched)
    for fd in watched.for_bwrap():
        os.set_inheritable(fd, True)
    _before_exec(plan)
    _hold(plan)
    full = argv(bwrap, plan, bash, script, tuple(watched.argv()))
    os.execv(full[0], full)
