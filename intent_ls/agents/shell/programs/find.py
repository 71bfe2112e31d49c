"""``find``: ``-delete`` destroys every match, ``-exec`` runs a command on each (judged
as that command, with the match only known at run time), ``-fprint`` writes a file."""

from __future__ import annotations

from collections.abc import Sequence

from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.walk import DESTRUCTIVE, Walk

EXECS = ("-exec", "-execdir", "-ok", "-okdir")
_PRINTS_TO = ("-fprint", "-fprint0", "-fprintf", "-fls")


def exec_commands(rest: Sequence[Word]) -> list[tuple[str, list[Word]]]:
    """Each ``-exec``'s option and the words of the command it runs (to ``;`` or ``+``)."""
    values = [w.value or "" for w in rest]
    found = []
    for i, value in enumerate(values):
        if value in EXECS:
            end = next((j for j in range(i + 1, len(values)) if values[j] in (";", "+")), None)
            found.append((value, list(rest[i + 1 : len(values) if end is None else end])))
    return found


def find(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    values = [w.value or "" for w in rest]
    if "-delete" in values:
        walk.raise_to(DESTRUCTIVE, "find -delete deletes every match")
    for option, words in exec_commands(rest):
        inner = [Word(None, text="{}") if w.value == "{}" else w for w in words]
        if inner:
            sub = walk.aside()
            sub.read_argv(inner, depth)
            for reason in sub.reasons:
                walk.raise_to(sub.klass, f"find {option}: {reason}")
    for flag in _PRINTS_TO:
        if flag in values and values.index(flag) + 1 < len(rest):
            walk.write(rest[values.index(flag) + 1], "find")


HANDLERS = {"find": find}
