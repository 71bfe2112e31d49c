"""``xargs``: runs a command with words read from stdin, so whatever that command
writes is only known at run time."""

from __future__ import annotations

from collections.abc import Sequence

from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.walk import UNKNOWN, WRITE, Walk

#: Options that take a value.
VALUED = frozenset(["-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a"])
#: The words xargs adds, read from stdin.
FROM_STDIN = Word(None, text="<arguments from stdin>")


def command(rest: Sequence[Word]) -> list[Word]:
    """The command xargs runs (its words after xargs's own options), or [] for none."""
    args = list(rest)
    while args and (args[0].value or "").startswith("-"):
        option = args.pop(0).value or ""
        if option in VALUED and args:
            args.pop(0)
    return args


def xargs(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    args = command(rest)
    if not args:
        return  # ``xargs`` alone echoes
    inner = walk.aside()
    inner.read_argv([*args, FROM_STDIN], depth)
    # What it writes is named at run time: a write is unknown, never a known write.
    klass = UNKNOWN if inner.klass == WRITE else inner.klass
    for reason in inner.reasons:
        walk.raise_to(klass, f"xargs: {reason}")


HANDLERS = {"xargs": xargs}
