"""A shell command as bash would run it: statements, commands and their words.

:mod:`.parse` reads a command string once (tree-sitter-bash) into these values; the
effect classifier (:mod:`.classify`), the approve-verb guard
(:mod:`intent_ls.agents.approval_guard`) and whatever else judges a command read them
instead of the parse tree, so the shell is understood one way. What the shell runs
*before* a command (``$(…)``, ``<(…)`` in its words, an unquoted heredoc body) is kept
with it as statements; what a command runs *itself* (``bash -c``, ``xargs``, ``find
-exec``) is its programs' business (:mod:`.programs`), read from its words with the
helpers here (:func:`unwrap`, :func:`options`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import TypeAlias

import attrs


@attrs.frozen
class Word:
    """A shell word: its value when it is static, else None; ``glob`` if it would
    expand to file names; ``text`` as written."""

    value: str | None
    glob: bool = False
    text: str = ""


@attrs.frozen
class Assignment:
    """``NAME=value``, alone or before a command: the value is a word, and the
    ``$(…)`` in it run first."""

    value: Word | None
    substitutions: Script = ()


@attrs.frozen
class Redirect:
    """``> f``, ``<< EOF``, ``<<< text``. ``kind`` is ``file``, ``heredoc`` or
    ``herestring``; ``target`` the file (or the herestring's word); ``to_descriptor``
    when the target is a file descriptor (``>&2``). A heredoc keeps its ``heredoc``
    text, the statements of the ``$(…)`` in its body (``body``) and what follows its
    start on the same line (``then``: ``cat <<EOF | sh``, ``cat <<EOF > out``).
    ``substitutions`` are the statements of the ``$(…)`` in its own words."""

    kind: str
    operator: str = ""
    target: Word | None = None
    to_descriptor: bool = False
    heredoc: str | None = None
    then: Script = ()
    body: Script = ()
    substitutions: Script = ()


@attrs.frozen
class Command:
    """A simple command: ``argv`` (the program and its arguments, as written: wrappers
    are unwrapped by :func:`unwrap`), the assignments and redirects written with it,
    and the statements of every ``$(…)``/``<(…)`` anywhere in it, in order (they run
    before it)."""

    argv: tuple[Word, ...]
    assignments: tuple[Assignment, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    substitutions: Script = ()

    @property
    def herestring(self) -> Redirect | None:
        """The last ``<<<`` written with the command: its stdin."""
        found = [r for r in self.redirects if r.kind == "herestring"]
        return found[-1] if found else None


@attrs.frozen
class Pipeline:
    stages: Script


@attrs.frozen
class Redirected:
    """A statement with redirects after it (``cmd > f``, ``while …; done < f``)."""

    body: Statement | None
    redirects: tuple[Redirect, ...]


@attrs.frozen
class Group:
    """Statements run in sequence or under control flow (a list, ``{ …; }``, ``if``,
    ``for``, a function body, a part that does not parse): their order is kept, and
    the ``$(…)`` in their own words (``for x in $(…)``) are statements among them.
    ``subshell``: a ``cd`` inside does not move the caller."""

    parts: Script
    subshell: bool = False


@attrs.frozen
class Declaration:
    """``declare``, ``unset``, ``[[ … ]]``: bash evaluates array subscripts in their
    ``words``; ``parts`` are their assignments and the ``$(…)`` in their words."""

    parts: Script
    words: tuple[Word, ...] = ()


Statement: TypeAlias = Command | Pipeline | Redirected | Redirect | Group | Declaration | Assignment
Script: TypeAlias = tuple[Statement, ...]


@attrs.frozen
class Parsed:
    """A command string read: ``text`` as bash reads it (continuations joined),
    its statements, whether part of it did not parse, and why it is not read at all
    (``too_deep``; ``script`` is then empty)."""

    text: str
    script: Script
    has_error: bool = False
    too_deep: str | None = None


def argv_of(statement: Statement | None) -> tuple[Word, ...]:
    """The words of the command a statement runs, through its redirects; () for
    anything but a command."""
    while isinstance(statement, Redirected):
        statement = statement.body
    return statement.argv if isinstance(statement, Command) else ()


def name(word: Word) -> str:
    """The program a word names, without its directory."""
    return PurePosixPath(word.value).name if word.value else ""


#: Wrappers that run the rest of the command line, and their options that take a value.
WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-t"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "command": frozenset(),
    "exec": frozenset(),
    "nohup": frozenset(),
    "time": frozenset(),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "builtin": frozenset(),
    "setsid": frozenset(),
}


def unwrap(argv: Sequence[Word]) -> list[Word]:
    """Drops wrappers (``sudo -u x``, ``env A=1``, ``nice -n 5``, ``timeout 10`` …)
    and their options, returning the command they run."""
    args = list(argv)
    while args:
        wrapper = name(args[0])
        takes_value = WRAPPERS.get(wrapper)
        if takes_value is None:
            return args
        args = _wrapper_options(args[1:], takes_value, wrapper == "env")
        if wrapper == "timeout" and args:
            args = args[1:]  # the duration
    return args


def _wrapper_options(args: list[Word], takes_value: frozenset[str], env: bool) -> list[Word]:
    """The words after a wrapper's options (and ``env``'s ``NAME=value`` words)."""
    while (
        args
        and args[0].value is not None
        and (args[0].value.startswith("-") or (env and "=" in args[0].value))
    ):
        option = args.pop(0).value
        if option == "--":
            break
        if option in takes_value and args:
            args.pop(0)
    return args


def options(args: Sequence[Word]) -> tuple[set[str], list[Word]]:
    """Short flags (``-rf`` → r, f), long ones (``--force``) and the operands."""
    flags: set[str] = set()
    operands: list[Word] = []
    ended = False
    for arg in args:
        value = arg.value
        if ended or not value or value == "-" or not value.startswith("-"):
            operands.append(arg)
        elif value == "--":
            ended = True
        elif value.startswith("--"):
            flags.add(value.split("=", 1)[0])
        else:
            flags.update(value[1:])
    return flags, operands
