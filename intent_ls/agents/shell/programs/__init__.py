"""What each program does to the workspace, one module per program or family: its
handler gets the walk, the program's name, its words after the name and the nesting
depth, and reports what the program writes, destroys or cannot be followed.

Adding a program is one module here with a ``HANDLERS`` table (name → handler), and its
names in :data:`ON_USE` (or, for a family listed by table, the module in
:data:`FAMILIES`). A hook is a new process per call and pays about 0.2 ms per module it
imports, so a module of a few named programs is imported when one of them runs. A
program nobody listed is ``unknown``: an unlisted program can do anything, so the
classifier errs towards asking rather than letting a write through.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.walk import UNKNOWN, Walk

Handler = Callable[[Walk, str, Sequence[Word], int], None]
#: Modules of families of programs listed by table, imported with this registry.
FAMILIES = ("files", "readers", "remote")
#: Program → the module that knows it, imported when the program runs.
ON_USE = {
    "git": "git",
    "find": "find",
    "sed": "sed",
    "perl": "sed",
    "psql": "sql",
    "mysql": "sql",
    "sqlite3": "sql",
    "python": "python",
    "python3": "python",
    "curl": "download",
    "wget": "download",
    "xargs": "xargs",
    **dict.fromkeys(["node", "nodejs", "ruby", "php"], "code"),
    **dict.fromkeys(
        [
            "docker",
            "podman",
            "docker-compose",
            "podman-compose",
            "systemd-run",
            "at",
            "batch",
            "ssh",
            "crontab",
            "tmux",
            "screen",
        ],
        "daemons",
    ),
    **dict.fromkeys(["bash", "sh", "zsh", "dash", "ksh", "eval", "watch"], "shells"),
}


def _handlers(module: str) -> dict[str, Handler]:
    found: dict[str, Handler] = importlib.import_module(f"{__name__}.{module}").HANDLERS
    return found


def unknown(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    walk.raise_to(UNKNOWN, f"{name} is not a program intent-ls knows the effects of")


#: Program → handler, for the families and the programs run so far.
REGISTRY: dict[str, Handler] = {n: h for m in FAMILIES for n, h in _handlers(m).items()}


def handler(name: str) -> Handler:
    """The handler of program ``name`` (every ``mkfs.*`` destroys data)."""
    found = REGISTRY.get(name)
    if found is not None:
        return found
    module = ON_USE.get(name)
    if module is not None:
        REGISTRY.update(_handlers(module))
        return REGISTRY[name]
    if name.startswith("mkfs"):
        return REGISTRY["shred"]
    return unknown
