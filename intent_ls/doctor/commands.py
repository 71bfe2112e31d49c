"""Which executable a configured command line names, found as its shell would find it."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path

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


def program_word(command: str) -> str | None:
    """The word that names the program: the first one after ``NAME=value`` assignments."""
    for word in words(command):
        if not _ASSIGNMENT.match(word):
            return word
    return None


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
