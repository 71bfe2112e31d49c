"""What a shell command would do to the workspace, from the shell model.

An agent's shell tool is the widest door around file-level governance: ``rm -rf src``,
``sed -i``, ``echo > file`` and ``git push --force`` never pass through a write tool.
The agent hooks ask here before a command runs. The command is read once into the shell
model (:mod:`.parse`, :mod:`.model`): pipelines, lists, subshells, ``$(...)``, heredocs
and redirects as the shell sees them; ``bash -c``/``sh -c``/``eval`` strings are read
recursively and wrappers (``env``, ``sudo``, ``nice``, ``timeout``, ``command``, ``xargs``
…) are unwrapped. What each program does is its own module's business
(:mod:`.programs`); this module walks the statements and redirects.

The answer is one of four classes, the strongest finding winning:

- ``destructive``: destroys data or history (``rm``, ``find -delete``, ``git reset
  --hard``, ``git push --force``, ``dd``, ``mkfs``, ``chmod -R``, ``curl … | sh``, SQL
  ``DROP``/``TRUNCATE``): a human decides;
- ``unknown``: what it writes cannot be worked out (a program we do not know, a target
  computed at run time, a parse error): a human decides;
- ``write``: writes exactly the files in ``writes``, which front doors check against the
  scope like a file write;
- ``safe``: reads only.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from typing import Any

from intent_ls.agents.shell.model import (
    Assignment,
    Command,
    Declaration,
    Group,
    Pipeline,
    Redirect,
    Redirected,
    Script,
    Word,
    argv_of,
    name,
    unwrap,
)
from intent_ls.agents.shell.runs import commands
from intent_ls.agents.shell.stdin import STDIN_OF, Stdin, herestring, output
from intent_ls.agents.shell.walk import (
    _RANK,
    DESTRUCTIVE,
    SAFE,
    UNKNOWN,
    WRITE,
    Classification,
    Walk,
)

__all__ = ["DESTRUCTIVE", "SAFE", "UNKNOWN", "WRITE", "_RANK", "Classification", "classify_command"]

#: ``bash -c`` inside ``bash -c`` …: deeper nesting is not analysed.
MAX_DEPTH = 8
#: Redirect operators that write their target.
_TO_FILE = frozenset([">", ">>", "&>", "&>>", ">|", "<>"])


def classify_command(
    command: str, root: str | os.PathLike[str], cwd: str | None = None
) -> Classification:
    """Classifies ``command`` as run in ``cwd`` (default: the workspace ``root``)."""
    root_s = os.path.normpath(os.fspath(root))
    walk = Walk(root_s, os.path.normpath(cwd or root_s), classify_text, classify_argv)
    classify_text(walk, command, 0)
    return walk.classification()


def classify_text(walk: Walk, command: str, depth: int) -> None:
    """Classifies a command string ``depth`` strings deep (``bash -c '…'``) into ``walk``."""
    from intent_ls.agents.shell.parse import parse

    if depth > MAX_DEPTH:
        walk.raise_to(UNKNOWN, "shell strings nested too deeply to analyse")
        return
    if not command.isascii():
        command.encode("utf-8")  # a lone surrogate is no text bash is given: it raises
    parsed = parse(command, depth)
    if parsed.too_deep is not None:
        # Nothing in it can be read, so nothing says what it reaches: held for a human.
        walk.raise_to(DESTRUCTIVE, parsed.too_deep)
        return
    if parsed.has_error:
        walk.raise_to(UNKNOWN, "the command does not parse as shell")
    _script(walk, parsed.script, depth)


def classify_argv(walk: Walk, argv: Sequence[Word], depth: int) -> None:
    """Classifies the program ``argv`` runs (wrappers unwrapped) into ``walk``."""
    from intent_ls.agents.shell.programs import handler

    args = unwrap(argv)
    if not args:
        return
    head = args[0]
    if head.value is None:
        # Nothing can say what it reaches outside the workspace: held, not verified.
        walk.raise_to(DESTRUCTIVE, f"runs a program only known at run time ({head.text})")
        return
    program = name(head)
    handler(program)(walk, program, args[1:], depth)


def _script(walk: Walk, script: Script, depth: int) -> None:
    for statement in script:
        _STATEMENTS[type(statement)](walk, statement, depth)


def _command(walk: Walk, command: Command, depth: int) -> None:
    for redirect in command.redirects:
        _redirect(walk, redirect, depth)
    _script(walk, command.substitutions, depth)
    if command.argv:
        given = command.herestring
        _fed(
            walk,
            walk.stdin if given is None else herestring(given),
            classify_argv,
            command.argv,
            depth,
        )


def _fed(
    walk: Walk, stdin: Stdin, read: Callable[[Walk, Any, int], None], what: Any, depth: int
) -> None:
    """Reads ``what`` with ``stdin`` as its standard input."""
    outer = walk.stdin
    walk.stdin = stdin
    try:
        read(walk, what, depth)
    finally:
        walk.stdin = outer


def _pipeline(walk: Walk, pipeline: Pipeline, depth: int) -> None:
    from intent_ls.agents.shell.programs.download import FETCHERS
    from intent_ls.agents.shell.programs.shells import INTERPRETERS_FROM_STDIN

    fed = walk.stdin
    for stage in pipeline.stages:
        _fed(walk, fed, _script, (stage,), depth)
        fed = output(stage)
    # ``curl … | sh``: code fetched from somewhere runs unseen.
    for before, after in itertools.pairwise(pipeline.stages):
        fetch = argv_of(before)
        run = argv_of(after)
        if fetch and run and name(fetch[0]) in FETCHERS:
            program = unwrap(run)
            if program and name(program[0]) in INTERPRETERS_FROM_STDIN:
                walk.raise_to(DESTRUCTIVE, "pipes downloaded code into an interpreter")


def _redirected(walk: Walk, statement: Redirected, depth: int) -> None:
    fed = walk.stdin
    for redirect in statement.redirects:
        fed = STDIN_OF[redirect.kind](redirect, fed)
    if statement.body is not None:
        _fed(walk, fed, _script, (statement.body,), depth)
    for redirect in statement.redirects:
        # ``cat <<EOF | psql``: the rest of the pipeline reads what the body writes.
        _fed(walk, output(statement), _redirect, redirect, depth)


def _redirect(walk: Walk, redirect: Redirect, depth: int) -> None:
    _script(walk, redirect.then, depth)  # ``cat <<EOF | sh``: the pipe continues here
    _script(walk, redirect.body, depth)  # ``$(…)`` in an unquoted body runs
    target = redirect.target
    if target is None:
        return
    _script(walk, redirect.substitutions, depth)
    _script(walk, redirect.body, depth)
    operator = redirect.operator
    to_file = operator in _TO_FILE or (operator == ">&" and not redirect.to_descriptor)
    if redirect.kind == "file" and to_file:
        walk.write(target, f"redirect {operator}")


def _group(walk: Walk, group: Group, depth: int) -> None:
    if group.defines and any(
        c.argv and c.argv[0].value == group.defines for c in commands(group.parts)
    ):
        walk.raise_to(
            DESTRUCTIVE,
            f"function {group.defines} calls itself: it can fork without bound (a fork bomb)",
        )
    cwd = walk.cwd
    _script(walk, group.parts, depth)
    if group.subshell:
        walk.cwd = cwd  # ``(cd x; …)`` does not move the caller


def _declaration(walk: Walk, declaration: Declaration, depth: int) -> None:
    _script(walk, declaration.parts, depth)


def _assignment(walk: Walk, assignment: Assignment, depth: int) -> None:
    _script(walk, assignment.substitutions, depth)


_STATEMENTS: dict[type, Callable[[Walk, Any, int], None]] = {
    Command: _command,
    Pipeline: _pipeline,
    Redirected: _redirected,
    Redirect: _redirect,
    Group: _group,
    Declaration: _declaration,
    Assignment: _assignment,
}
