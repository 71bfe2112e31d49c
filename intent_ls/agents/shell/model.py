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

from collections.abc import Iterator, Sequence
from pathlib import PurePosixPath
from typing import Any, TypeAlias


class _Value:
    """Equality, hash and repr by the slots. The values are plain slotted classes, not
    attrs or named tuples: a hook is a new process per call and creates these classes
    every time, which costs an attrs class a millisecond and a plain class a hundredth
    of it. No reader changes a value once the parser made it."""

    __slots__ = ()

    def _fields(self) -> Iterator[Any]:
        return (getattr(self, field) for field in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and tuple(self._fields()) == tuple(other._fields())  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), *self._fields()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={v!r}" for f, v in zip(self.__slots__, self._fields(), strict=True))
        return f"{type(self).__name__}({shown})"


class Word(_Value):
    """A shell word: its value when it is static, else None; ``glob`` if it would
    expand to file names; ``text`` as written."""

    __slots__ = ("glob", "text", "value")

    def __init__(self, value: str | None, glob: bool = False, text: str = "") -> None:
        self.value = value
        self.glob = glob
        self.text = text


class Assignment(_Value):
    """``NAME=value``, alone or before a command: the value is a word, and the
    ``$(…)`` in it run first."""

    __slots__ = ("substitutions", "value")

    def __init__(self, value: Word | None, substitutions: Script = ()) -> None:
        self.value = value
        self.substitutions = substitutions


class Redirect(_Value):
    """``> f``, ``<< EOF``, ``<<< text``. ``kind`` is ``file``, ``heredoc`` or
    ``herestring``; ``target`` the file (or the herestring's word); ``to_descriptor``
    when the target is a file descriptor (``>&2``). A heredoc keeps its ``heredoc``
    text, the statements of the ``$(…)`` in its body (``body``) and what follows its
    start on the same line (``then``: ``cat <<EOF | sh``, ``cat <<EOF > out``).
    ``substitutions`` are the statements of the ``$(…)`` in its own words."""

    __slots__ = ("body", "heredoc", "kind", "operator", "substitutions", "target", "then",
                 "to_descriptor")  # fmt: skip

    def __init__(
        self,
        kind: str,
        operator: str = "",
        target: Word | None = None,
        to_descriptor: bool = False,
        heredoc: str | None = None,
        then: Script = (),
        body: Script = (),
        substitutions: Script = (),
    ) -> None:
        self.kind = kind
        self.operator = operator
        self.target = target
        self.to_descriptor = to_descriptor
        self.heredoc = heredoc
        self.then = then
        self.body = body
        self.substitutions = substitutions


class Command(_Value):
    """A simple command: ``argv`` (the program and its arguments, as written: wrappers
    are unwrapped by :func:`unwrap`), the assignments and redirects written with it,
    and the statements of every ``$(…)``/``<(…)`` anywhere in it, in order (they run
    before it)."""

    __slots__ = ("argv", "assignments", "redirects", "substitutions")

    def __init__(
        self,
        argv: tuple[Word, ...],
        assignments: tuple[Assignment, ...] = (),
        redirects: tuple[Redirect, ...] = (),
        substitutions: Script = (),
    ) -> None:
        self.argv = argv
        self.assignments = assignments
        self.redirects = redirects
        self.substitutions = substitutions

    @property
    def herestring(self) -> Redirect | None:
        """The last ``<<<`` written with the command: its stdin."""
        found = [r for r in self.redirects if r.kind == "herestring"]
        return found[-1] if found else None


class Pipeline(_Value):
    __slots__ = ("stages",)

    def __init__(self, stages: Script) -> None:
        self.stages = stages


class Redirected(_Value):
    """A statement with redirects after it (``cmd > f``, ``while …; done < f``)."""

    __slots__ = ("body", "redirects")

    def __init__(self, body: Statement | None, redirects: tuple[Redirect, ...]) -> None:
        self.body = body
        self.redirects = redirects


class Group(_Value):
    """Statements run in sequence or under control flow (a list, ``{ …; }``, ``if``,
    ``for``, a function body, a part that does not parse): their order is kept, and
    the ``$(…)`` in their own words (``for x in $(…)``) are statements among them.
    ``subshell``: a ``cd`` inside does not move the caller. ``defines``: the function
    whose body this is (a function calling itself can fork without bound)."""

    __slots__ = ("defines", "parts", "subshell")

    def __init__(self, parts: Script, subshell: bool = False, defines: str = "") -> None:
        self.parts = parts
        self.subshell = subshell
        self.defines = defines


class Declaration(_Value):
    """``declare``, ``unset``, ``[[ … ]]``: bash evaluates array subscripts in their
    ``words``; ``parts`` are their assignments and the ``$(…)`` in their words."""

    __slots__ = ("parts", "words")

    def __init__(self, parts: Script, words: tuple[Word, ...] = ()) -> None:
        self.parts = parts
        self.words = words


Statement: TypeAlias = Command | Pipeline | Redirected | Redirect | Group | Declaration | Assignment
Script: TypeAlias = tuple[Statement, ...]


class Parsed(_Value):
    """A command string read: ``text`` as bash reads it (continuations joined),
    its statements, whether part of it did not parse, and why it is not read at all
    (``too_deep``; ``script`` is then empty)."""

    __slots__ = ("has_error", "script", "text", "too_deep")

    def __init__(
        self, text: str, script: Script, has_error: bool = False, too_deep: str | None = None
    ) -> None:
        self.text = text
        self.script = script
        self.has_error = has_error
        self.too_deep = too_deep


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
