"""The sandbox's plan for one command, from what exists on this machine now."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from intent_ls.agents.sandbox.limits import MAX_TASKS, session_cgroup
from intent_ls.agents.sandbox.plan import (
    CREATED_CACHES,
    DAEMON_DIRS,
    DAEMON_SOCKETS,
    HOME_CACHES,
    LINKED_CACHES,
    Plan,
)

# The shell prefix imports this module on every command: the protected set, the spec
# and the agents' profiles are imported only where :func:`candidates` is worked out.


def protected_paths(root: Path) -> list[str]:
    """What stays read-only inside the workspace: the effects' protected set, the
    agents' settings folders, the effects' store, and the existing files the
    repository's ``policy.agentProtectedPaths`` names (files it creates there are
    removed by verification after the call)."""
    from intent_ls.agents.effects.protected_set import roots
    from intent_ls.agents.effects.store import state_home

    files, trees = roots(root)
    return [*files, *trees, *_settings_dirs(root), str(state_home()), *_policy_files(root)]


def _settings_dirs(root: Path) -> list[str]:
    """The folders of the agents' project settings, whole: a settings file that does
    not exist yet (``.claude/settings.local.json``) cannot be created in them, and
    bubblewrap can only bind what exists."""
    from intent_ls.agents import registry

    found = {os.path.dirname(p.hooks_file) for p in registry.profiles()}
    return [str(root / name) for name in sorted(found) if name]


def _spec_policy(root: Path, key: str) -> object | None:
    """The spec's policy, read only when its text names ``key`` (one read otherwise)."""
    from intent_ls.agents.effects.protected_set import SIDECAR

    spec_path = root / SIDECAR / "active_intents.yaml"
    try:
        if key.encode() not in spec_path.read_bytes():
            return None
    except OSError:
        return None
    from intent_ls.spec.cache import load_spec_cached

    spec, _ = load_spec_cached(root, spec_path)
    return spec.policy if spec is not None else None


def _policy_files(root: Path) -> list[str]:
    from intent_ls.agents.effects.protected_set import PolicyPaths

    policy = _spec_policy(root, "agentProtectedPaths")
    globs = getattr(policy, "agent_protected_paths", ())
    return [path for path, _, _ in PolicyPaths(globs).walk(root)] if globs else []


def writable_extra(root: Path) -> list[str]:
    """``policy.agentWritablePaths``: more trees outside the workspace a command may
    write (``~/`` is the home folder)."""
    policy = _spec_policy(root, "agentWritablePaths")
    return [os.path.expanduser(p) for p in getattr(policy, "agent_writable_paths", ())]


def max_tasks(root: Path) -> int:
    """``policy.agentMaxTasks``, else :data:`~.limits.MAX_TASKS`."""
    policy = _spec_policy(root, "agentMaxTasks")
    found = getattr(policy, "agent_max_tasks", None)
    return found if isinstance(found, int) else MAX_TASKS


def _installation() -> list[str]:
    """Where intent-ls runs from (its package, its environment): read-only even inside
    a tree the policy makes writable, or a command could rewrite the hook."""
    import sys

    return [str(Path(__file__).resolve().parents[2]), sys.prefix]


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def private_tmp(key: str) -> str:
    """The host directory that is the commands' ``/tmp``, one per session, kept between
    its commands (an agent writes a patch to ``/tmp`` and applies it in the next)."""
    import tempfile  # with shutil: not for the hook, which keeps candidates only

    base = Path(tempfile.gettempdir()) / f"intent-ls-{os.getuid()}"
    base.mkdir(mode=0o700, exist_ok=True)
    info = base.lstat()
    if base.is_symlink() or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise OSError(f"{base} is not this user's private directory")
    tmp = base / _digest(key)
    try:
        os.utime(tmp)  # in use: the pruning below goes by this time
    except FileNotFoundError:
        _remove_idle(base)
        tmp.mkdir(mode=0o700, exist_ok=True)
    return str(tmp)


#: A session's ``/tmp`` that no command has used for this long is removed when a new
#: session starts: every session makes one, and ``/tmp`` may be cleaned only at boot.
IDLE_TMP_SECONDS = 2 * 24 * 3600


def _remove_idle(base: Path) -> None:
    import shutil
    import time

    cutoff = time.time() - IDLE_TMP_SECONDS
    with os.scandir(base) as entries:
        idle = [e.path for e in entries if _older(e, cutoff)]
    for path in idle:
        shutil.rmtree(path, ignore_errors=True)


def _older(entry: os.DirEntry[str], cutoff: float) -> bool:
    try:
        return (
            entry.is_dir(follow_symlinks=False)
            and entry.stat(follow_symlinks=False).st_mtime < cutoff
        )
    except OSError:
        return False


def _existing(paths: list[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for path in paths:
        if os.path.lexists(path) and not os.path.islink(path):
            seen.setdefault(os.path.abspath(path), None)
    return tuple(seen)


def _caches(home: str, extra: list[str]) -> tuple[str, ...]:
    for name in CREATED_CACHES:
        try:
            os.makedirs(os.path.join(home, name), exist_ok=True)
        except OSError:
            continue
    return _existing([os.path.join(home, name) for name in HOME_CACHES] + extra)


def _programs() -> list[str]:
    """Where the command's programs are: every ``PATH`` folder, the active virtual
    environment, the interpreter running this and its import path (a venv or a checkout
    under ``/tmp`` stays visible, read-only, behind the private ``/tmp``)."""
    import sys

    found = [p for p in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]
    found += [sys.prefix, sys.base_prefix, os.environ.get("VIRTUAL_ENV", "")]
    # An editable install's sources (intent-ls's own checkout among them) are imported
    # from where they are, not from the environment.
    found += [p for p in sys.path if os.path.isabs(p)]
    found.append(str(Path(__file__).resolve().parents[3]))
    return [p for p in found if p]


def _under_tmp(paths: list[str]) -> tuple[str, ...]:
    """Those of ``paths`` the private ``/tmp`` would hide (the mount point itself, not
    ``$TMPDIR``)."""
    top = os.path.realpath("/tmp")
    inside = [p for p in paths if os.path.realpath(p).startswith(top + os.sep)]
    return _existing(inside)


def candidates(root: Path) -> dict[str, list[str]]:
    """What the plan starts from, whether or not it exists yet: the paths kept read-only
    and the policy's writable trees (the hook keeps these for the shell prefix)."""
    return {"readonly": protected_paths(root), "writable": writable_extra(root)}


def build(
    root: Path,
    cwd: str,
    key: str,
    out_files: tuple[str, ...] = (),
    pid_namespace: bool = False,
    paths: dict[str, list[str]] | None = None,
    bwrap: str | None = None,
) -> Plan:
    """The plan for one command; ``paths``, :func:`candidates` as the hook kept them
    (worked out here when not given). With ``bwrap``, the ledger is given to git as a
    copy where that bubblewrap can mount one (:mod:`.ledger_copy`)."""
    from intent_ls.agents.sandbox.ledger_copy import prepare

    found = paths or candidates(root)
    home = os.path.expanduser("~")
    writable = _caches(home, list(found.get("writable", [])))
    linked = [os.path.join(home, name) for name in LINKED_CACHES]
    installed = [p for p in _installation() if any(_inside(p, w) for w in writable)]
    readonly = _existing([*found.get("readonly", []), *linked, *installed])
    tasks = max_tasks(root)
    sockets = [p for p in DAEMON_SOCKETS if os.path.exists(p) and not os.path.isdir(p)]
    return Plan(
        root=str(root),
        cwd=cwd,
        tmp=private_tmp(key),
        writable=tuple(w for w in writable if not _inside(w, str(root))),
        readonly=readonly,
        visible_tmp=_under_tmp([home, str(root), cwd, *_programs()]),
        out_files=_existing(list(out_files)),
        masked_dirs=tuple(d for d in DAEMON_DIRS if os.path.isdir(d) and not os.path.islink(d)),
        masked_files=_existing(sockets),
        pid_namespace=pid_namespace,
        max_tasks=tasks,
        tasks_cgroup=session_cgroup(_digest(f"{os.path.realpath(root)}\0{key}"), tasks),
        ledger_copy=prepare(root, bwrap) if bwrap else None,
        key=_liveness_key(root, key),
    )


def _liveness_key(root: Path, key: str) -> str:
    """The workspace as the key (a launcher not told the session), by its real path, as
    the hooks ask for it (:mod:`.liveness`)."""
    return os.path.realpath(key) if key == str(root) else key


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
