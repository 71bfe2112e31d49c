"""The paths no agent tool call may change, wherever they are.

In the workspace: the sidecar (``.orchestration/**``, local state and caches included),
``.intentignore``, ``.gitattributes``, the agents' project settings (each agent's
profile names its ``protected_trees``, ``protected_files`` and ``protected_globs``) and
git's own control files (``config``, ``commondir``, ``config.worktree``, ``hooks/**``,
``info/**``, in the common git directory of a worktree too). In the home directory: the
agents' user settings (their profiles' ``home_files``) and git's user configuration.
Those are whole files, not globs: an agent's own logs and sessions in its home folder
change during every call and are the agent's business.

Plus what the repository's policy adds (``policy.agentProtectedPaths`` in the spec,
:class:`PolicyPaths`): root-anchored globs, each looked for under its literal directory
or file only, so that the set stays cheap to walk around every call. The after-tool
event uses the globs the before-tool event read, never the spec as the call left it.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

SIDECAR = ".orchestration"
WORKSPACE_FILES = (".intentignore", ".gitattributes")
WORKSPACE_TREES = (SIDECAR,)
#: ``commondir`` and ``config.worktree`` too: git never creates the first in a main
#: repository, and either would make every later git read another repository or config.
GIT_FILES = ("config", "commondir", "config.worktree")
GIT_TREES = ("hooks", "info")
HOME_FILES = (".gitconfig", ".config/git/config", ".config/git/attributes", ".config/git/ignore")
#: Sidecar files derived from others and rebuilt at will: one that changed during a
#: call is deleted rather than copied back (a forged cache then widens nothing).
CACHE_NAMES = ("spec-cache.json", "glob-cache.json", "trace-index.sqlite")
LEDGER = f"{SIDECAR}/agent_trace.jsonl"
#: The ledger writers' lock: held with ``flock``, its content means nothing.
LEDGER_LOCK = f"{SIDECAR}/.local/agent_trace.jsonl.lock"
#: More files than this under one protected tree are not walked further (a planted
#: tree of a million files must not stall every hook).
MAX_ENTRIES = 5000


def git_dirs(root: Path) -> tuple[Path, ...]:
    """The repository's git directory and, for a worktree, its common directory."""
    for top in (root, *root.parents):
        dot = top / ".git"
        if dot.is_dir() and not dot.is_symlink():
            return (dot,)
        if dot.is_file():
            try:
                text = dot.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return ()
            if not text.startswith("gitdir:"):
                return ()
            gitdir = Path(os.path.join(top, text[len("gitdir:") :].strip()))
            try:
                common = (gitdir / "commondir").read_text().strip()
            except OSError:
                return (gitdir,)
            return (gitdir, Path(os.path.normpath(gitdir / common)))
    return ()


class PolicyPaths:
    """The repository's ``policy.agentProtectedPaths``, as one before-tool event read them."""

    def __init__(self, globs: Sequence[str] = ()) -> None:
        self.globs = tuple(globs)
        self.bases: tuple[str, ...] = ()
        if self.globs:  # most repositories name none: their hooks skip the glob module
            from intent_ls.spec.globs import literal_base

            bases = (literal_base(g) for g in self.globs if not g.startswith("!"))
            self.bases = tuple(sorted({b for b in bases if b}))

    def match(self, rel: str) -> bool:
        if not self.globs:
            return False
        from intent_ls.scope.index import compile_matcher

        return compile_matcher(self.globs).match(rel)

    def walk(self, root: Path) -> Iterator[tuple[str, str, os.stat_result]]:
        """(path, workspace-relative path, stat) of every existing protected entry."""
        seen: set[str] = set()
        for base in self.bases:
            for path, st in walk(str(root / base)):
                rel = path[len(str(root)) + 1 :].replace(os.sep, "/")
                if path not in seen and self.match(rel):
                    seen.add(path)
                    yield path, rel, st


def roots(root: Path) -> tuple[list[str], list[str]]:
    """(single files, whole trees) that are protected whatever the spec says, as
    absolute paths."""
    agents = _agents()
    files = [str(root / name) for name in (*WORKSPACE_FILES, *agents.files)]
    trees = [str(root / name) for name in (*WORKSPACE_TREES, *agents.trees)]
    for folder, pattern in agents.globs:
        with contextlib.suppress(OSError):
            names = os.listdir(root / folder)
            files += [str(root / folder / n) for n in names if fnmatch.fnmatchcase(n, pattern)]
    for git in git_dirs(root):
        files += [str(git / n) for n in GIT_FILES]
        trees += [str(git / n) for n in GIT_TREES]
    home = Path(os.path.expanduser("~"))
    files += [str(home / n) for n in (*HOME_FILES, *agents.home)]
    return sorted(set(files)), sorted(set(trees))


def workspace_names() -> list[str]:
    """The workspace-relative files and folders that hold every protected path in the
    workspace (a glob's folder for the glob), whatever the spec says."""
    agents = _agents()
    names = {*WORKSPACE_TREES, *WORKSPACE_FILES, *agents.trees, *agents.files}
    names |= {folder for folder, _ in agents.globs}
    return sorted(n for n in names if n)


class _AgentPaths(NamedTuple):
    """Every agent's protected paths, from the profiles (a ``NamedTuple``: the sandbox's
    launcher reads them before every shell command, and imports no attrs)."""

    files: tuple[str, ...]
    trees: tuple[str, ...]
    #: (folder, name pattern) of each ``folder/pattern`` glob.
    globs: tuple[tuple[str, str], ...]
    home: tuple[str, ...]


def _agents() -> _AgentPaths:
    from intent_ls.agents import registry

    return _paths_of(registry.names())


@functools.cache
def _paths_of(names: tuple[str, ...]) -> _AgentPaths:
    """Read once per set of agents (a hook reads them around every call)."""
    from intent_ls.agents import registry

    profiles = [registry.get(name) for name in names]
    return _AgentPaths(
        tuple(f for p in profiles for f in p.protected_files),
        tuple(t for p in profiles for t in p.protected_trees),
        tuple(_split(g) for p in profiles for g in p.protected_globs),
        tuple(h for p in profiles for h in p.home_files),
    )


def _split(glob: str) -> tuple[str, str]:
    folder, _, pattern = glob.rpartition("/")
    return folder, pattern


def walk(tree: str) -> Iterator[tuple[str, os.stat_result]]:
    """Every non-directory entry under ``tree`` (never following a symlink), and the tree
    itself when it is not a directory."""
    try:
        top = os.lstat(tree)
    except OSError:
        return
    if not _is_dir(top):
        yield tree, top
        return
    stack = [tree]
    seen = 0
    while stack and seen < MAX_ENTRIES:
        here = stack.pop()
        try:
            entries = list(os.scandir(here))
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            seen += 1
            if _is_dir(st):
                stack.append(entry.path)
            else:
                yield entry.path, st


def _is_dir(st: os.stat_result) -> bool:
    import stat

    return stat.S_ISDIR(st.st_mode)


def is_protected_rel(rel: str, policy: PolicyPaths | None = None) -> bool:
    """Whether a workspace-relative path is one of the protected ones."""
    head = rel.split("/", 1)[0]
    agents = _agents()
    if head in WORKSPACE_TREES or rel in WORKSPACE_FILES:
        return True
    if head in agents.trees or rel in agents.files:
        return True
    if policy is not None and policy.match(rel):
        return True
    return any(
        rel.startswith(folder + "/") and fnmatch.fnmatchcase(rel[len(folder) + 1 :], pattern)
        for folder, pattern in agents.globs
    )
