"""Finding the workspace a path is in, without compiling anything: the sandbox's
launcher runs before every shell command of an agent, and the spec's loader and scope
index it would otherwise import (:mod:`.discover`) cost it ~40 ms each time."""

from __future__ import annotations

import os
from pathlib import Path

from intent_ls.spec.location import SPEC_RELPATH


def discover_workspace(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding the intent spec, as git finds
    its repository. The walk stops at the enclosing repository's root (a directory with
    ``.git``): a spec in some unrelated directory above a checkout must not start
    governing it. None when no spec is found."""
    start = Path(os.path.realpath(start))
    for candidate in (start, *start.parents):
        if (candidate / SPEC_RELPATH).is_file():
            return candidate
        if (candidate / ".git").exists():
            return None
    return None
