"""What each program does to the workspace, one module per program or family: its
handler gets the walk, the program's name, its words after the name and the nesting
depth, and reports what the program writes, destroys or cannot be followed.

Adding a program is one module here with a ``HANDLERS`` table (name → handler) and its
name in :data:`MODULES`. A program nobody listed is ``unknown``: an unlisted program can
do anything, so the classifier errs towards asking rather than letting a write through.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.walk import UNKNOWN, Walk

Handler = Callable[[Walk, str, Sequence[Word], int], None]
#: The modules under this package, each holding a ``HANDLERS`` table.
MODULES = (
    "download", "files", "find", "git", "python", "readers", "remote", "sed", "shells", "sql",
    "xargs",
)  # fmt: skip


def _registry() -> dict[str, Handler]:
    found: dict[str, Handler] = {}
    for module in MODULES:
        handlers: dict[str, Handler] = importlib.import_module(f"{__name__}.{module}").HANDLERS
        found.update(handlers)
    return found


def unknown(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    walk.raise_to(UNKNOWN, f"{name} is not a program intent-ls knows the effects of")


REGISTRY = _registry()


def handler(name: str) -> Handler:
    """The handler of program ``name`` (every ``mkfs.*`` destroys data)."""
    found = REGISTRY.get(name)
    if found is not None:
        return found
    if name.startswith("mkfs"):
        return REGISTRY["shred"]
    return unknown
