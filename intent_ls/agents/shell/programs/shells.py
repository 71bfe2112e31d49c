"""Shells and ``eval``: the script of ``bash -c '…'`` and of ``eval …`` is read as a
command of its own; a script from a file is not read (unknown)."""

from __future__ import annotations

from collections.abc import Sequence

from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.walk import UNKNOWN, Walk

SHELLS = frozenset(["bash", "sh", "zsh", "dash", "ksh"])
#: What runs code piped into it (``curl … | sh``).
INTERPRETERS_FROM_STDIN = SHELLS | {"python", "python3", "perl", "ruby", "node"}


def script(rest: Sequence[Word]) -> tuple[bool, Word | None]:
    """Whether a shell's words hold ``-c`` (any bundle: ``-lc``), and the script after it."""
    for i, arg in enumerate(rest):
        value = arg.value or ""
        if value.startswith("-") and "c" in value.lstrip("-") and not value.startswith("--"):
            return True, rest[i + 1] if i + 1 < len(rest) else None
    return False, None


def shell(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    given, text = script(rest)
    if not given:
        walk.raise_to(UNKNOWN, f"{name} runs a script intent-ls does not read")
    elif text is None or text.value is None:
        walk.raise_to(UNKNOWN, f"{name} -c with a script only known at run time")
    else:
        walk.read_text(text.value, depth + 1)


def eval_(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    if all(w.value is not None for w in rest):
        walk.read_text(" ".join(w.value or "" for w in rest), depth + 1)
    else:
        walk.raise_to(UNKNOWN, "eval of a string only known at run time")


#: ``watch`` options that take a value.
_WATCH_VALUED = frozenset(["-n", "--interval", "-q", "--equexit"])


def watch(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    """``watch CMD``: runs ``sh -c`` of its words joined (``-x``: the words as argv),
    again and again."""
    args = list(rest)
    execs = False
    while args and (args[0].value or "").startswith("-"):
        option = args.pop(0).value or ""
        execs = execs or option in ("-x", "--exec")
        if option in _WATCH_VALUED and args:
            args.pop(0)
    if execs:
        walk.read_argv(args, depth)
    elif all(w.value is not None for w in args):
        walk.read_text(" ".join(w.value or "" for w in args), depth + 1)
    else:
        walk.raise_to(UNKNOWN, "watch of a command only known at run time")


HANDLERS = {**dict.fromkeys(SHELLS, shell), "eval": eval_, "watch": watch}
