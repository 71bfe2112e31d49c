"""Every program a command string runs, read from the shell model: what a sandbox or
any other judge that asks "what runs here?" looks at, without walking statements.

Wrappers are unwrapped (``sudo``, ``env``, ``nice``, ``timeout`` …) and what programs
run in turn is followed: ``bash -c``/``sh -c`` and ``eval`` strings (parsed once, as
the classifier parses them), ``xargs CMD`` and ``find -exec CMD``. The ``$(…)`` in
words, heredoc continuations (``cat <<EOF | sh``) and the commands of every statement
are included, in order. What cannot be read (a script only known at run time, nesting
too deep) is a program whose name is only known at run time: ``Word(None)``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from intent_ls.agents.shell import model
from intent_ls.agents.shell.model import Script, Statement, Word, name, unwrap
from intent_ls.agents.shell.programs.shells import SHELLS, script

#: ``bash -c`` inside ``bash -c`` …: deeper is not read (as the classifier).
MAX_DEPTH = 8


def programs_run(command: str, depth: int = 0) -> list[tuple[Word, ...]]:
    """The argv of each program ``command`` runs, wrappers unwrapped, in order."""
    return list(_text(command, depth))


def commands(script: Script) -> Iterator[model.Command]:
    """Every simple command of ``script``: those of each ``$(…)`` before the command
    whose words hold it, and what follows a heredoc's start after its command."""
    for statement in script:
        yield from _commands(statement)


def _commands(statement: Statement) -> Iterator[model.Command]:
    if isinstance(statement, model.Command):
        for redirect in statement.redirects:
            yield from _commands(redirect)
        yield from commands(statement.substitutions)
        yield statement
    elif isinstance(statement, model.Redirected):
        if statement.body is not None:
            yield from _commands(statement.body)
        yield from commands(statement.redirects)
    else:
        yield from commands(_parts(statement))


def _parts(statement: Statement) -> Script:
    if isinstance(statement, model.Pipeline):
        return statement.stages
    if isinstance(statement, model.Group | model.Declaration):
        return statement.parts
    if isinstance(statement, model.Redirect):
        return (*statement.then, *statement.body, *statement.substitutions)
    if isinstance(statement, model.Assignment):
        return statement.substitutions
    return ()


def _unread(text: str) -> tuple[Word, ...]:
    return (Word(None, text=text),)


def _text(command: str, depth: int) -> Iterator[tuple[Word, ...]]:
    from intent_ls.agents.shell.parse import parse

    if depth > MAX_DEPTH:
        yield _unread(command)
        return
    parsed = parse(command, depth)
    if parsed.too_deep is not None:
        yield _unread(command)
        return
    for found in commands(parsed.script):
        yield from _argv(found.argv, depth)


def _argv(argv: Sequence[Word], depth: int) -> Iterator[tuple[Word, ...]]:
    args = unwrap(argv)
    if not args:
        return
    yield tuple(args)
    program, rest = name(args[0]), args[1:]
    if program in SHELLS:
        yield from _shell(rest, depth)
    elif program == "eval":
        yield from _eval(rest, depth)
    elif program == "xargs":
        yield from _xargs(rest, depth)
    elif program == "find":
        yield from _find(rest, depth)


def _shell(rest: Sequence[Word], depth: int) -> Iterator[tuple[Word, ...]]:
    given, text = script(rest)
    if given and (text is None or text.value is None):
        yield _unread(text.text if text is not None else "")
    elif given and text is not None and text.value is not None:
        yield from _text(text.value, depth + 1)


def _eval(rest: Sequence[Word], depth: int) -> Iterator[tuple[Word, ...]]:
    if any(w.value is None for w in rest):
        yield _unread(" ".join(w.text for w in rest))
    else:
        yield from _text(" ".join(w.value or "" for w in rest), depth + 1)


def _xargs(rest: Sequence[Word], depth: int) -> Iterator[tuple[Word, ...]]:
    from intent_ls.agents.shell.programs.xargs import FROM_STDIN, command

    args = command(rest)
    if args:
        yield from _argv([*args, FROM_STDIN], depth)


def _find(rest: Sequence[Word], depth: int) -> Iterator[tuple[Word, ...]]:
    from intent_ls.agents.shell.programs.find import exec_commands

    for _, words in exec_commands(rest):
        yield from _argv(words, depth)
