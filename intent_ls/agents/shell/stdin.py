"""What a command reads on stdin, where the command line says: a heredoc, a herestring,
or ``echo``/``printf`` of fixed words (and ``cat`` of a heredoc) piped into it.

Two readers need it: the approve-verb guard (a script piped into a shell runs) and the
classifier (``echo 'DROP TABLE x;' | psql``, ``python <<EOF`` feed a program the code it
runs). A stdin is None (nothing the agent chose), its text, or ``...`` when only known at
run time.
"""

from __future__ import annotations

from collections.abc import Callable
from types import EllipsisType
from typing import TypeAlias

from intent_ls.agents.shell.model import (
    Redirect,
    Redirected,
    Statement,
    Word,
    argv_of,
    name,
    unwrap,
)

Stdin: TypeAlias = str | EllipsisType | None


def static_value(word: Word) -> str | None:
    """The word's one value, or None when the shell computes or expands it (a variable,
    ``$(…)``, a glob, a brace expansion ``ap{p,}rove`` that the parser keeps as text)."""
    bare = word.text[:1] not in ("'", '"')
    if word.value is None or word.glob or (bare and "{" in word.text):
        return None
    return word.value


def output(stage: Statement) -> Stdin:
    """What a pipeline stage writes to the next one: ``echo``/``printf`` of fixed words
    and ``cat`` of a heredoc are read; anything else is only known at run time."""
    heredoc: Stdin = None
    if isinstance(stage, Redirected):
        for redirect in stage.redirects:
            heredoc = redirect.heredoc if redirect.kind == "heredoc" else heredoc
    args = unwrap(argv_of(stage))
    if not args or any(w.value is None for w in args):
        return ...
    program = name(args[0])
    if program in ("echo", "printf"):
        return " ".join(w.value or "" for w in args[1:] if not (w.value or "").startswith("-"))
    if program == "cat" and len(args) == 1 and heredoc is not None:
        return heredoc
    return ...


def herestring(redirect: Redirect) -> Stdin:
    word = redirect.target
    return ... if word is None or word.value is None else word.value


def _file(redirect: Redirect, fed: Stdin) -> Stdin:
    """``< file``: a script from a file is not the agent's text here; ``< <(…)`` is
    unknown."""
    if redirect.operator != "<":
        return fed
    return (
        None if redirect.target is not None and static_value(redirect.target) is not None else ...
    )


#: Redirect kind → the stdin it gives a command (from the stdin it had).
STDIN_OF: dict[str, Callable[[Redirect, Stdin], Stdin]] = {
    "heredoc": lambda redirect, fed: redirect.heredoc,
    "herestring": lambda redirect, fed: herestring(redirect),
    "file": _file,
}
