"""Which executable a configured command line names, found as its shell would find it."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from intent_ls.agents import registry

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def expand(text: str, env: Mapping[str, str]) -> str:
    """``$NAME`` and ``${NAME}`` from ``env`` (unset: empty, as a shell has it)."""
    return _VARIABLE.sub(lambda m: env.get(m.group(1) or m.group(2), ""), text)


def words(command: str) -> list[str]:
    """The command line's words as a POSIX shell splits them; an unbalanced quote gives
    the plain whitespace split, so a broken line is still named by its first word."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def resolve(program: str, cwd: Path, env: Mapping[str, str]) -> Path | None:
    """The executable file ``program`` runs from ``cwd`` with ``env``: a path is taken
    relative to ``cwd``, a bare name is looked up on ``env``'s ``PATH``."""
    name = os.path.expanduser(expand(program, env))
    if not name:
        return None
    if "/" in name:
        path = cwd / name
        return path if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which(name, path=env.get("PATH", os.defpath))
    return Path(found) if found else None


#: What makes a command line more than a program and its words: lists, pipes,
#: redirections, substitutions, globs, and variables other than the project folder's.
_SHELL_SYNTAX = r"[;&|<>()`\n*?\[\]{}~#]|\$(?!\{?(?:VARS)\b)"


def plain_words(line: str) -> list[str] | None:
    """The words of a command line that is nothing but a program and its arguments
    (the project folder's variable allowed), else None."""
    names = "|".join(sorted({v for p in registry.profiles() for v in p.command_vars}))
    stripped = re.sub(rf"\$\{{?(?:{names})\}}?", "", line) if names else line
    if re.search(_SHELL_SYNTAX.replace("VARS", names or "(?!)"), stripped):
        return None
    try:
        found = shlex.split(line)
    except ValueError:
        return None
    return found if found and not _ASSIGNMENT.match(found[0]) else None


def brought_by_repository(program: Path, root: Path) -> bool:
    """Whether ``program`` (or a link on the way to it) lies inside the workspace and
    came with it: tracked by git, or anywhere inside a workspace git does not hold.
    doctor never runs such a program: cloning a repository must not make doctor run
    the repository's code. (A virtual environment inside the work tree is untracked.)"""
    from intent_ls.workspace.setup import find_git_dir

    candidates = {Path(os.path.normpath(program)), Path(os.path.realpath(program))}
    inside = [c for c in candidates if c.is_relative_to(root)]
    if not inside:
        return False
    found = find_git_dir(root)
    if found is None:
        return True
    top = found[0].resolve()
    for candidate in inside:
        if not candidate.is_relative_to(top):
            continue
        try:
            done = subprocess.run(
                ["git", "ls-files", "--error-unmatch", "--", candidate.relative_to(top).as_posix()],
                cwd=top,
                capture_output=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return True  # git cannot tell: assume it came with the repository
        if done.returncode == 0:
            return True
    return False
