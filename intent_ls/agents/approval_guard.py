"""Approvals are a human's: an agent's shell never gets to run ``intent-ls approve``.

Three layers, because no single one is complete:

- before a shell call, any command that could run the approve verb is refused outright
  (never asked: a yes at an agent's prompt would be the agent approving its own work);
- ``intent-ls approve`` itself refuses to run where an agent's shell marks its
  environment (:data:`AGENT_ENV`);
- whatever still appends an approval to the ledger during a tool call is stopped by the
  write barrier or cut off after the call (:mod:`.effects.verify`).

The first layer reads the command as the shell will, from the shell model the
classifier reads too (:mod:`.shell.model`, parsed once: :mod:`.shell.parse`): what runs
is followed through wrappers
(``env -S``, ``sudo``, ``nohup``, ``xargs``, ``find -exec``), nested shells (``sh -c``,
``eval``, ``alias``, heredocs and strings piped into a shell), ``python -m intent_ls``
and any path to the executable. Arguments of programs known to only read or print them
(``echo``, ``grep``, ``git commit -m``) are data, so a mention of the verb there is let
through. Whatever cannot be read — a program name, a script, an eval or a verb only
known at run time, code handed to an interpreter — stays closed when it could be the
verb: refused.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath
from typing import Any

from intent_ls.agents import registry
from intent_ls.agents.shell.model import (
    WRAPPERS,
    Assignment,
    Command,
    Declaration,
    Group,
    Pipeline,
    Redirect,
    Redirected,
    Script,
    Word,
    name,
    unwrap,
)
from intent_ls.agents.shell.stdin import STDIN_OF, Stdin, output
from intent_ls.agents.shell.stdin import herestring as fed_by
from intent_ls.agents.shell.stdin import static_value as _value
from intent_ls.policy import verdicts

#: Variables the agents set in the environment of the commands their shell tool runs,
#: and a human's terminal does not have (each profile's ``env_markers``, captured with
#: ``env`` through each real CLI: tests/agents/test_real_barrier.py), and the one
#: several agents set.
AGENT_ENV = (*registry.env_markers(), "AI_AGENT")
VERB = "approve"
#: The verdict codes ``approve`` takes (the rules a human approves from the terminal).
_CODES = verdicts.TERMINAL_APPROVABLE
#: ``bash -c`` inside ``bash -c`` …: deeper than this is not read, and refused.
MAX_DEPTH = 8
_NOISE = re.compile(r"""["'\\`$(){}\[\]]""")
_PROGRAM = re.compile(r"intent[-_]?ls")
_PYTHON = re.compile(r"(python|pypy)[0-9.]*")
_QUOTED_NAME = re.compile(r'"\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)"')
_SHELLS = frozenset(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish"])
_STDIN_FILES = frozenset(["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"])
#: Interpreters whose code comes in an option (``-e``/``-c``) or on stdin.
_INTERPRETERS = {
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p", "--print"),
    "deno": ("eval",),
    "bun": ("-e", "--eval"),
    "php": ("-r",),
    "lua": ("-e",),
    "osascript": ("-e",),
}
#: Programs that only read, print or store their arguments: a mention of the verb in
#: them is data, as in the test and lint runners' (the classifier's ``CHECKERS``). Not
#: ``printf -v``, ``let``, ``declare``, ``read``, ``test``: bash evaluates array
#: subscripts in their arguments; not ``man``, ``less``, ``sort``: they run a program
#: named in an option.
_DATA_ONLY = frozenset(
    [
        "echo", "printf", "cat", "tac", "head", "tail", "wc", "nl", "grep", "egrep", "fgrep",
        "rg", "ag", "ack", "ls", "ll", "pwd", "cd", "pushd", "popd", "true", "false", ":",
        "which", "whereis", "type", "jq", "yq", "diff", "cmp", "comm", "stat", "file", "du",
        "df", "tree", "realpath", "readlink", "basename", "dirname", "seq", "sleep", "date",
        "id", "whoami", "uname", "hostname", "printenv", "cut", "tr", "uniq", "od", "xxd",
        "hexdump", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "column", "fmt",
        "fold", "paste", "join", "expand", "unexpand", "rev", "strings", "ps", "uptime",
        "free", "touch", "mkdir", "rmdir", "cp", "mv", "rm", "ln", "chmod", "tee", "base64",
        "exit", "return",
    ]
)  # fmt: skip
#: What a shell reading its script from stdin gets (:mod:`.shell.stdin`).
_Stdin = Stdin
#: ``xargs`` options that take a value.
_XARGS_VALUES = frozenset(["-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--replace"])


def is_approval_attempt(command: str) -> bool:
    """Whether ``command`` could run ``intent-ls approve``, however it is spelled."""
    try:
        return _text(command, 0, None)
    except RecursionError:
        return True  # nested deeper than Python can walk: cannot be read, so closed


def agent_shell() -> str | None:
    """The marker naming the agent whose shell this process runs in, or None."""
    return next((name for name in AGENT_ENV if os.environ.get(name)), None)


def _mentions(text: str) -> bool:
    """Text that names both the program and the verb, quoting and escapes aside: for
    code an interpreter runs, and for what does not parse as shell."""
    flat = _NOISE.sub("", text).lower()
    return bool(_PROGRAM.search(flat)) and VERB in flat


def _text(command: str, depth: int, stdin: _Stdin = None) -> bool:
    from intent_ls.agents.shell.parse import parse

    if depth > MAX_DEPTH:
        return True
    parsed = parse(command, depth)
    if parsed.too_deep is not None:
        # Not read: refused here when it names the verb, else the classifier holds it for
        # a human with the reason (a refusal here would tell the agent the wrong one).
        return _mentions(parsed.text)
    if parsed.has_error and _mentions(parsed.text):
        return True
    return _any(parsed.script, depth, stdin)


# -- statements ---------------------------------------------------------------------------


def _any(script: Script, depth: int, stdin: _Stdin = None) -> bool:
    return any(_STATEMENTS[type(s)](s, depth, stdin) for s in script)


def _command(command: Command, depth: int, stdin: _Stdin) -> bool:
    if _any(command.substitutions, depth):  # ``$(…)`` and ``<(…)`` run before it
        return True
    if any(_assignment(a, depth) for a in command.assignments):
        return True
    given = command.herestring
    if given is not None:
        stdin = fed_by(given)
    return bool(command.argv) and _argv(command.argv, depth, stdin)


def _pipeline(pipeline: Pipeline, depth: int, stdin: _Stdin) -> bool:
    fed = stdin
    for stage in pipeline.stages:
        if _any((stage,), depth, fed):
            return True
        fed = output(stage)
    return False


def _redirected(statement: Redirected, depth: int, stdin: _Stdin) -> bool:
    """A statement with redirects: a heredoc or herestring is its stdin; in ``cat <<EOF
    | sh`` the rest of the pipeline hangs under the heredoc and reads the body's output."""
    fed = stdin
    for redirect in statement.redirects:
        fed = STDIN_OF[redirect.kind](redirect, fed)
    if statement.body is not None and _any((statement.body,), depth, fed):
        return True
    rest = [s for r in statement.redirects if r.kind == "heredoc" for s in r.then]
    if _any(tuple(s for s in rest if not isinstance(s, Redirect)), depth, output(statement)):
        return True
    return _any(statement.redirects, depth)


def _redirect(redirect: Redirect, depth: int, stdin: _Stdin) -> bool:
    """A redirect's own ``$(…)``, heredoc body and what follows a heredoc's start."""
    return (
        _any(redirect.then, depth, stdin)
        or _any(redirect.body, depth, stdin)
        or _any(redirect.substitutions, depth, stdin)
    )


def _group(group: Group, depth: int, stdin: _Stdin) -> bool:
    return _any(group.parts, depth, stdin)


def _declaration(declaration: Declaration, depth: int, stdin: _Stdin) -> bool:
    """``declare 'a[$(…)]'``, ``[[ -v 'a[$(…)]' ]]``: bash evaluates the subscript."""
    for word in declaration.words:
        value = word.value
        if value is not None and ("$(" in value or "`" in value) and _text(value, depth + 1):
            return True
    return _any(declaration.parts, depth, stdin)


def _assignment(assignment: Assignment, depth: int, stdin: _Stdin = None) -> bool:
    """``GIT_EDITOR='intent-ls approve …' git commit``: an assigned text may be run."""
    if _any(assignment.substitutions, depth):
        return True
    value = assignment.value.value if assignment.value is not None else None
    return value is not None and _text(value, depth + 1)


_STATEMENTS: dict[type, Callable[[Any, int, _Stdin], bool]] = {
    Command: _command,
    Pipeline: _pipeline,
    Redirected: _redirected,
    Redirect: _redirect,
    Group: _group,
    Declaration: _declaration,
    Assignment: _assignment,
}


# -- one command line ---------------------------------------------------------------------


def _argv(words: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    if depth > MAX_DEPTH:
        return True
    args = unwrap(_split_env(words))
    if not args:
        return False
    head, rest = args[0], args[1:]
    if _value(head) is None:
        # ``$x …`` may split into a program and the verb; ``"$NAME"`` stays one word.
        return not _QUOTED_NAME.fullmatch(head.text) or any(_verb_or_unknown(w) for w in rest)
    program = name(head)
    if _is_program(program) or "intent_ls" in (head.value or "").split("/")[:-1]:
        return any(_verb_or_unknown(w) for w in rest)
    return _program(program)(rest, depth, stdin)


def _program(program: str) -> Callable[[Sequence[Word], int, _Stdin], bool]:
    """How the words of ``program`` could run the verb."""
    from intent_ls.agents.shell.programs.readers import CHECKERS

    found = _PROGRAMS.get(program)
    if found is not None:
        return found
    if _PYTHON.fullmatch(program):
        return _python
    if program in _INTERPRETERS:
        return lambda rest, depth, stdin: _interpreter(program, rest, depth, stdin)
    if program in _DATA_ONLY or program in CHECKERS:
        return _data
    return _unknown


def _data(rest: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    """Arguments of a program that only reads, prints or stores them."""
    return False


def _eval(rest: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    if any(w.value is None for w in rest):
        return True
    return _text(" ".join(w.value or "" for w in rest), depth + 1)


def _source(rest: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    return _script_operand(rest[:1], depth, stdin)


def _alias(rest: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    return any(w.value is None or _text(w.value.partition("=")[2], depth + 1) for w in rest)


def _printf(rest: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    """``printf -v`` assigns (bash evaluates a subscript in the name); else data."""
    return any(w.value == "-v" for w in rest) and _unknown(rest, depth, stdin)


def _split_env(words: Sequence[Word]) -> list[Word]:
    """``env -S 'intent-ls approve'``: env splits the string into the command's words
    (its other options and ``NAME=value`` words are left for the classifier to drop)."""
    out = list(words)
    for _ in range(MAX_DEPTH):
        at = _split_string(out)
        if at is None:
            return out
        i, value, skip = at
        out = [*out[:i], *_env_words(value), *out[i + skip :]]
    return [Word(None, text=" ".join(w.text for w in out))] if _split_string(out) else out


def _env_words(value: str | None) -> list[Word]:
    if value is None:
        return [Word(None, text="<env -S string>")]
    try:
        return [Word(p, text=p) for p in shlex.split(value)]
    except ValueError:
        return [Word(None, text=value)]


def _split_string(words: Sequence[Word]) -> tuple[int, str | None, int] | None:
    """Where an ``env`` has ``-S`` (wherever it stands: ``timeout 5 env -S …``, ``sudo -u
    me env -S …``): (index, string, words used)."""
    in_env = skip = False
    for i, word in enumerate(words):
        value = word.value
        if skip:
            skip = False
        elif value is not None and name(word) == "env":
            in_env = True
        elif in_env and value in ("-u", "-C", "--unset", "--chdir"):
            skip = True
        elif in_env and value is not None and _splits(value):
            return _split_at(words, i, value)
        elif value is None or not (value.startswith("-") or "=" in value):
            in_env = False
    return None


def _splits(option: str) -> bool:
    return option.startswith(("-S", "--split-string=")) or option == "--split-string"


def _split_at(words: Sequence[Word], i: int, option: str) -> tuple[int, str | None, int]:
    if option in ("-S", "--split-string"):
        return i, words[i + 1].value if i + 1 < len(words) else "", 2
    if option.startswith("--split-string="):
        return i, option.split("=", 1)[1], 1
    return i, option[2:], 1


def _is_program(program: str) -> bool:
    return program.lower().replace("-", "").replace("_", "") == "intentls"


def _verb_or_unknown(word: Word) -> bool:
    value = _value(word)
    return value is None or value == VERB


def _shell(rest: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    args = list(rest)
    while args and args[0].value is not None and args[0].value.startswith(("-", "+")):
        option = args.pop(0).value or ""
        if not option.startswith("--") and "c" in option.lstrip("-+"):
            if not args or args[0].value is None:
                return True  # ``sh -c "$(…)"``: a script only known at run time
            return _text(args[0].value, depth + 1, stdin) or _positional(args[1:])
        if option in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file") and args:
            args.pop(0)
    return _script_operand(args[:1], depth, stdin)


def _positional(args: Sequence[Word]) -> bool:
    """``sh -c '"$0" approve' intent-ls``: the script's own words name the program."""
    return any(w.value is None or _is_program(name(w)) or w.value == VERB for w in args)


def _script_operand(operand: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    """A shell's script: a file is not read here (the other layers stand); stdin is what
    the pipe, heredoc or herestring gives it; a process substitution is unknown."""
    script = operand[0] if operand else None
    if script is not None and script.value is None:
        return True
    if script is not None and script.value not in _STDIN_FILES:
        return False
    if stdin is ...:
        return True
    return stdin is not None and _text(stdin, depth + 1)


def _python(rest: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    args = list(rest)
    while args and args[0].value is not None and args[0].value.startswith("-"):
        option = args.pop(0).value or ""
        if option == "-":
            break
        if option.startswith(("-m", "-c")):
            given = option[2:] or (args.pop(0).value if args else "")
            run = _python_module if option.startswith("-m") else _python_code
            return run(given, args, depth, stdin)
        if option in ("-W", "-X", "--check-hash-based-pycs") and args:
            args.pop(0)
    return _python_script(args, depth, stdin)


def _python_module(module: str | None, args: list[Word], depth: int, stdin: _Stdin) -> bool:
    if module is None or module.split(".")[0] == "intent_ls":
        return module is None or any(_verb_or_unknown(w) for w in args)
    # As the module's own program: ``-m pytest`` (data), ``-m runpy intent_ls …``
    return _argv([Word(module, text=module), *args], depth + 1, stdin)


def _python_code(code: str | None, args: list[Word], depth: int, stdin: _Stdin) -> bool:
    return _code(code, args, depth)


def _python_script(args: list[Word], depth: int, stdin: _Stdin) -> bool:
    """``python FILE …`` (not read: the other layers stand; its arguments are), or code
    on stdin."""
    path = args[0].value if args else None
    if args and path is None:
        return any(_verb_or_unknown(w) for w in args[1:])
    if path is not None and path not in _STDIN_FILES:
        if _is_program(PurePosixPath(path).name) or "intent_ls" in path.split("/"):
            return any(_verb_or_unknown(w) for w in args[1:])
        return _unknown(args[1:], depth)
    return _stdin_code(stdin)


def _stdin_code(stdin: _Stdin) -> bool:
    return stdin is ... or (isinstance(stdin, str) and _mentions(stdin))


def _interpreter(program: str, rest: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    flags = _INTERPRETERS[program]
    for i, word in enumerate(rest):
        if word.value in flags:
            code = rest[i + 1].value if i + 1 < len(rest) else ""
            return _code(code, rest[i + 2 :], depth)
    if any(w.value is None for w in rest):
        return True
    operands = [i for i, w in enumerate(rest) if not (w.value or "").startswith("-")]
    if operands:  # a script file, not read (the other layers stand); its arguments are
        return _unknown(rest[operands[0] + 1 :], depth)
    return _stdin_code(stdin)


def _code(code: str | None, args: Sequence[Word], depth: int) -> bool:
    """Code given to an interpreter is not read as code: naming both the program and
    the verb, or the program with the verb among its arguments
    (``python -c 'import runpy; runpy.run_module("intent_ls")' approve``), or handing
    its arguments on (``perl -e 'exec @ARGV' intent-ls approve``) is refused."""
    if code is None or _mentions(code):
        return True
    if _PROGRAM.search(_NOISE.sub("", code).lower()) and any(_verb_or_unknown(w) for w in args):
        return True
    return _unknown(args, depth)


def _xargs(rest: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    """What ``xargs`` runs, with the words it reads from stdin only known at run time."""
    from intent_ls.agents.shell.programs.xargs import FROM_STDIN

    args = list(rest)
    marker = None
    while args and (args[0].value or "").startswith("-"):
        option = args.pop(0).value or ""
        marker = _xargs_marker(option, args) or marker
        if option in _XARGS_VALUES and args:
            args.pop(0)
    if not args:
        return False  # ``xargs`` alone runs echo
    if marker:
        args = [Word(None, text=w.text) if marker in (w.value or "") else w for w in args]
    return _argv([*args, FROM_STDIN], depth + 1, ...)


def _xargs_marker(option: str, args: Sequence[Word]) -> str | None:
    """The replace string an ``xargs`` option sets (``-I{}``, ``-i``, ``--replace=…``)."""
    if option in ("-I", "--replace") and args:
        return args[0].value
    if option.startswith("-I") and len(option) > 2:
        return option[2:]
    if option.startswith("--replace="):
        return option.split("=", 1)[1]
    return "{}" if option == "-i" else None


def _find(rest: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    from intent_ls.agents.shell.programs.find import exec_commands

    for _, words in exec_commands(rest):
        inner = [Word(None, text="{}") if "{}" in (w.value or "") else w for w in words]
        if inner and _argv(inner, depth + 1, None):
            return True
    return False


def _git(rest: Sequence[Word], depth: int, stdin: _Stdin) -> bool:
    """git's own arguments are data (``commit -m``), but the values of settings it may
    run (``-c core.pager=…``, ``alias.x='!…'``, ``config core.editor …``) are code."""
    values = [w.value for w in rest]
    if any(v is None for v in values):
        return any(_verb_or_unknown(w) for w in rest) or _unknown(rest, depth)
    settings = _git_settings([v or "" for v in values])
    return any(_text(s.removeprefix("!"), depth + 1) for s in settings if s)


def _git_settings(values: list[str]) -> list[str]:
    """The values of the settings given on git's command line (``-c``, ``config``)."""
    settings: list[str] = []
    for i, value in enumerate(values):
        if value == "-c" and i + 1 < len(values):
            settings.append(values[i + 1].partition("=")[2])
        elif value.startswith("-c") and len(value) > 2:
            settings.append(value[2:].partition("=")[2])
    if "config" in values:
        settings.extend(values[values.index("config") + 1 :])
    return settings


def _unknown(rest: Sequence[Word], depth: int, stdin: _Stdin = None) -> bool:
    """A program whose effects nobody listed may run its arguments (``watch``, ``su
    -c``, ``npx``, ``uv run``, ``strace``, ``ssh``): the verb after the program's name
    or after a word only known at run time, code naming both, or a shell, interpreter
    or wrapper later on its command line are refused."""
    values = [_value(w) for w in rest]
    for i, value in enumerate(values):
        if value == VERB and set(values[i + 1 :]) & _CODES:
            return True  # a renamed copy or link of the program: its verb and a code
    return any(_runs_verb(rest, i, depth, stdin) for i in range(len(rest)))


def _runs_verb(rest: Sequence[Word], i: int, depth: int, stdin: _Stdin) -> bool:
    """Whether the ``i``-th word of an unknown program's line could start the verb."""
    word = rest[i]
    if word.value is None or _is_program(name(word)):
        following = rest[i + 1 :]
        return any(_verb_or_unknown(w) for w in following) or (
            word.value is not None and bool(following) and following[0].value is None
        )
    if _mentions(word.value):
        return True
    program = name(word)
    runs = program in _RUNNERS or bool(_PYTHON.fullmatch(program))
    return runs and _argv(rest[i:], depth + 1, stdin)


_PROGRAMS: dict[str, Callable[[Sequence[Word], int, _Stdin], bool]] = {
    "xargs": _xargs,
    "find": _find,
    **dict.fromkeys(_SHELLS, _shell),
    "eval": _eval,
    "source": _source,
    ".": _source,
    "alias": _alias,
    "git": _git,
    "printf": _printf,
}
#: Programs that run what follows them on their command line.
_RUNNERS = _SHELLS | frozenset(WRAPPERS) | {"eval", "xargs", "find", *_INTERPRETERS}
