"""Running git on a repository whose files an agent could have written, so that git reads
the repository's own git directory only and runs no program the repository configured.

An agent can write ``.git/config``, ``.git/info/attributes``, ``.gitattributes``, a
``.git/commondir`` or a ``.git`` file, and a config ``include`` that pulls in a file of
its own. A git started on such a repository would run the agent's clean filter while it
compares file contents (``git status`` does when a file's stat data changed), its
fsmonitor hook, its hooks, its external diff — outside any barrier, with the user's
rights. So every git the hook and ``check`` run:

- is told its git directory, common directory and work tree (``GIT_DIR``,
  ``GIT_COMMON_DIR``, ``GIT_WORK_TREE``) after :func:`real_git_dir` accepted them, with
  every other ``GIT_*`` variable removed: no discovery, no ``core.worktree``, no
  replace refs, no grafts;
- runs with :data:`NO_PROGRAMS` on its command line (command-line settings win over
  every config file, included ones too), and with ``clean``, ``smudge`` and ``process``
  emptied for every filter driver any config defines (:func:`filter_overrides`; a driver
  no config defines runs nothing, whatever the attributes name), so no attribute can
  reach a program.

Filters are neutralised by name rather than by ignoring attributes because git 2.39 reads
``info/attributes`` and ``.gitattributes`` unconditionally (``--attr-source`` came in
2.40 and reads only the tree's). The cost is that a legitimate filter (git-lfs) is not
applied either: a file whose stat data changed may then be reported modified although
its cleaned content is not, which the hook treats as one more file to look at.
"""

from __future__ import annotations

import os
import select
import signal
import time
from pathlib import Path

#: Settings that would run a program (or write) while git only looks; on the command line
#: they override every config file. ``protocol.allow=never`` forbids every transport, so
#: no credential helper, ssh command or proxy can be reached either.
NO_PROGRAMS = (
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "diff.external=",
    "-c", "core.pager=cat",
    "-c", "core.sshCommand=",
    "-c", "credential.helper=",
    "-c", "protocol.allow=never",
    "-c", "gpg.program=/bin/false",
    "-c", "core.alternateRefsCommand=",
)  # fmt: skip

#: Seconds a git may take before it is given up (its answer is then None).
GIT_TIMEOUT = 20

_FILTER_COMMANDS = ("clean", "smudge", "process")


def _inside(path: Path, tree: Path) -> bool:
    return path == tree or tree in path.parents


def _read_line(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.readline().rstrip("\n")
    except OSError:
        return None


def _admin_dir(dot: Path, top: Path) -> tuple[Path, Path] | None:
    """The git and common directories a ``.git`` *file* names, when git itself could have
    made it: a directory outside the work tree (a submodule's, under the superproject's
    ``.git``: its own common directory), or a linked worktree's ``<common>/worktrees/
    <name>`` whose ``commondir`` is ``<common>`` and whose ``gitdir`` names this ``.git``
    file back."""
    line = _read_line(dot)
    if line is None or not line.startswith("gitdir: "):
        return None
    admin = Path(os.path.realpath(top / line[len("gitdir: ") :]))
    if not admin.is_dir() or _inside(admin, Path(os.path.realpath(top))):
        return None
    if not os.path.lexists(admin / "commondir"):
        return admin, admin
    common = admin.parent.parent
    named = _read_line(admin / "commondir")
    back = _read_line(admin / "gitdir")
    if (
        admin.parent.name != "worktrees"
        or named is None
        or Path(os.path.realpath(admin / named)) != common
        or back is None
        or Path(os.path.realpath(back)) != Path(os.path.realpath(dot))
    ):
        return None
    return admin, common


def real_git_dir(top: Path) -> tuple[Path, Path] | None:
    """The git directory of the work tree ``top`` and its common directory (config,
    objects, refs), or None when ``top/.git`` is neither a directory nor a ``.git`` file
    git could have written (:func:`_admin_dir`).

    A ``.git`` *directory* holding a ``commondir`` is refused: a main repository has
    none, and one written there sends git's reads of config, refs and objects to another
    repository. (``GIT_COMMON_DIR`` cannot overrule it: git 2.39's ref store reads the
    file whatever the variable says.) The hook puts back a ``commondir`` a call creates
    (it is among git's protected control files), so this refusal lasts only until then.
    A linked worktree whose ``commondir`` or ``gitdir`` disagree with where it stands is
    refused too: its real repository cannot be told. ``config.worktree`` needs no check
    (it is config like any other, and ``GIT_WORK_TREE`` outranks its ``core.worktree``),
    nor do ``objects/info/alternates``: objects are named by their hash, so an alternate
    can only supply an object the repository could have held itself (``objects/`` is
    where git writes commits), never change one."""
    dot = top / ".git"
    if dot.is_symlink():
        return None
    if dot.is_dir():
        return None if os.path.lexists(dot / "commondir") else (dot, dot)
    if dot.is_file():
        return _admin_dir(dot, top)
    return None


def git_env(git_dir: Path, common: Path, top: Path) -> dict[str, str]:
    """The environment of every git run here: none of the caller's ``GIT_*`` (an agent's
    ``GIT_CONFIG_PARAMETERS``, ``GIT_EXTERNAL_DIFF``, ``GIT_INDEX_FILE``…), the accepted
    git directory and work tree, no optional locks, no prompts, no grafts or replaced
    objects."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_DIR=str(git_dir),
        GIT_COMMON_DIR=str(common),
        GIT_WORK_TREE=str(top),
        GIT_OPTIONAL_LOCKS="0",
        GIT_TERMINAL_PROMPT="0",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_GRAFT_FILE=os.devnull,
        GIT_PAGER="cat",
    )
    return env


def spawn(argv: list[str], env: dict[str, str]) -> tuple[int, int] | None:
    """``argv`` started with its output on a pipe: ``(pid, read end)``; None when it could
    not start. ``os.posix_spawnp`` rather than ``subprocess`` (whose import costs every
    hook process ~2 ms), set up as ``subprocess`` would: stdin and stderr on
    ``/dev/null``, SIGPIPE and SIGXFSZ back to their defaults, no other descriptor
    inherited (Python opens them all close-on-exec)."""
    read_end, write_end = os.pipe()
    null = os.open(os.devnull, os.O_RDWR)
    try:
        pid = os.posix_spawnp(
            argv[0],
            argv,
            env,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, null, 0),
                (os.POSIX_SPAWN_DUP2, write_end, 1),
                (os.POSIX_SPAWN_DUP2, null, 2),
            ],
            setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),
        )
    except OSError:
        os.close(read_end)
        return None
    finally:
        os.close(write_end)
        os.close(null)
    return pid, read_end


def collect(pid: int, out: int, timeout: float = GIT_TIMEOUT) -> bytes | None:
    """Everything a :func:`spawn`-ed process writes, once it exited 0; None when it failed
    or overran ``timeout`` (then it is killed: no answer rather than a late one). Closes
    ``out`` and reaps ``pid`` either way."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    poller = select.poll()
    poller.register(out, select.POLLIN)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                kill(pid)
                return None
            chunk = os.read(out, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        kill(pid)
        return None
    finally:
        os.close(out)
    _, status = os.waitpid(pid, 0)
    return b"".join(chunks) if os.waitstatus_to_exitcode(status) == 0 else None


def kill(pid: int) -> None:
    """End and reap a :func:`spawn`-ed process not reaped yet (so the pid is still its)."""
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def filter_overrides(listing: bytes) -> dict[str, str]:
    """Settings that empty every filter driver named in ``listing`` (the output of ``git
    config -z --name-only --list``) and make none required: git runs a filter only when
    its command is non-empty. Given through ``GIT_CONFIG_COUNT`` rather than ``-c``,
    which cannot carry a driver name holding ``=``; both outrank every config file."""
    drivers: set[str] = set()
    for key in listing.split(b"\0"):
        name = os.fsdecode(key)
        if name[:7].lower() == "filter." and name.count(".") >= 2:
            drivers.add(name[len("filter.") : name.rindex(".")])
    settings = [
        (f"filter.{driver}.{command}", "false" if command == "required" else "")
        for driver in sorted(drivers)
        for command in (*_FILTER_COMMANDS, "required")
    ]
    env = {"GIT_CONFIG_COUNT": str(len(settings))}
    for i, (key, value) in enumerate(settings):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    return env


class SafeGit:
    """How to run git on one work tree: its accepted git directory, the environment and
    the settings that keep every configurable program from running. Made by
    :func:`open_repo`, which reads the filter drivers once per process."""

    def __init__(self, top: Path, dirs: tuple[Path, Path], overrides: dict[str, str]) -> None:
        self.top, (self.git_dir, self.common) = top, dirs
        self.env = {**git_env(self.git_dir, self.common, top), **overrides}

    def argv(self, *args: str) -> list[str]:
        """The command line of ``git <args>`` run in ``top``."""
        return ["git", "--no-pager", *NO_PROGRAMS, "-C", str(self.top), *args]

    def here(self, *args: str) -> list[str]:
        """The command line of ``git <args>`` run where it is started, inside ``top``."""
        return ["git", "--no-pager", *NO_PROGRAMS, *args]

    def run(self, *args: str) -> bytes | None:
        """``git <args>``'s output; None when it failed or could not start."""
        started = spawn(self.argv(*args), self.env)
        return collect(*started) if started else None


#: Seconds a repository's driver listing is reused: a hook process runs a few gits
#: within one event; a long-lived process must not keep a listing a later config outgrew.
REUSE_FOR = 2.0
_OPENED: dict[Path, tuple[float, SafeGit | None]] = {}


def work_tree(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` that has a ``.git``."""
    for top in (start, *start.parents):
        if os.path.lexists(top / ".git"):
            return top
    return None


def open_repo(top: Path) -> SafeGit | None:
    """How to run git safely on the work tree ``top``; None when its git directory is not
    the repository's own (:func:`real_git_dir`) or its config cannot be read. The
    driver listing is reused for :data:`REUSE_FOR` seconds."""
    now = time.monotonic()
    if top in _OPENED and now - _OPENED[top][0] < REUSE_FOR:
        return _OPENED[top][1]
    dirs = real_git_dir(top)
    repo: SafeGit | None = None
    if dirs is not None:
        listing = SafeGit(top, dirs, {}).run("config", "-z", "--name-only", "--list")
        if listing is not None:
            repo = SafeGit(top, dirs, filter_overrides(listing))
    _OPENED[top] = (now, repo)
    return repo
