"""Approvals are a human's: an agent's shell never gets to run ``intent-ls approve``.

Three layers, because no single one is complete:

- before a shell call, any command that could run the approve verb is refused outright
  (never asked: a yes at an agent's prompt would be the agent approving its own work);
- ``intent-ls approve`` itself refuses to run where an agent's shell marks its
  environment (:data:`AGENT_ENV`);
- whatever still appends an approval to the ledger during a tool call is stopped by the
  write barrier or cut off after the call (:mod:`.effects.verify`).

The first layer reads the command as the shell will, from its tree-sitter-bash parse
(the classifier's, :mod:`.shell.classify`): what runs is followed through wrappers
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
from collections.abc import Sequence
from pathlib import PurePosixPath
from types import EllipsisType
from typing import TYPE_CHECKING

from intent_ls.policy import verdicts

if TYPE_CHECKING:
    import tree_sitter

    from intent_ls.agents.shell.classify import _Word

#: Variables the agents set in the environment of the commands their shell tool runs,
#: and a human's terminal does not have (captured with ``env`` through each real CLI:
#: Claude Code 2.1.197, Gemini CLI 0.61.0, Codex 0.169.0 sandboxed or not;
#: tests/agents/test_real_barrier.py). ``CODEX_HOME`` is the user's own setting, not one.
AGENT_ENV = (
    "CLAUDECODE",
    "CLAUDE_CODE_SESSION_ID",
    "AI_AGENT",
    "GEMINI_CLI",
    "CODEX_THREAD_ID",
    "CODEX_TOOL_CALL_ID",
    "CODEX_CI",
)
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
#: What a shell reading its script from stdin gets: None (nothing the agent chose), the
#: text, or ``...`` when only known at run time.
_Stdin = str | None | EllipsisType
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
    from intent_ls.agents.shell.classify import _parser
    from intent_ls.agents.shell.reading import join_continuations, nesting_budget, too_deep

    if depth > MAX_DEPTH:
        return True
    text = join_continuations(command)  # bash drops a backslash-newline; the parser not
    tree = _parser().parse(text.encode("utf-8", "surrogateescape"))
    if too_deep(tree.root_node, nesting_budget(depth)) is not None:
        # Not read: refused here when it names the verb, else the classifier holds it for
        # a human with the reason (a refusal here would tell the agent the wrong one).
        return _mentions(text)
    if tree.root_node.has_error and _mentions(text):
        return True
    return _node(tree.root_node, depth, stdin)


# -- the parse tree -----------------------------------------------------------------------


def _node(node: tree_sitter.Node, depth: int, stdin: _Stdin = None) -> bool:
    kind = node.type
    if kind == "command":
        return _command(node, depth, stdin)
    if kind == "pipeline":
        stages = node.named_children
        fed: _Stdin = stdin
        for stage in stages:
            if _node(stage, depth, fed):
                return True
            fed = _output(stage)
        return False
    if kind == "redirected_statement":
        return _redirected(node, depth, stdin)
    if kind in ("declaration_command", "unset_command", "test_command") and _evaluated_words(
        node, depth
    ):
        return True
    if kind == "variable_assignment":
        return _assignment(node, depth)
    return any(_node(child, depth, stdin) for child in node.named_children)


def _redirected(node: tree_sitter.Node, depth: int, stdin: _Stdin) -> bool:
    """A statement with redirects: a heredoc or herestring is its stdin; in ``cat <<EOF
    | sh`` the rest of the pipeline hangs under the heredoc and reads the body's output."""
    fed = stdin
    rest: list[tree_sitter.Node] = []
    for child in node.named_children:
        if child.type == "heredoc_redirect":
            fed = _heredoc(child)
            rest.extend(c for c in child.named_children if c.type in _STATEMENTS)
        elif child.type == "herestring_redirect":
            fed = _herestring(child)
        elif child.type == "file_redirect" and _reads_stdin(child):
            # A script from a file is not the agent's text here; ``< <(…)`` is unknown.
            target = child.named_children[-1] if child.named_children else None
            fed = None if target is not None and _static(target) else ...
    body = node.child_by_field_name("body")
    if body is not None and _node(body, depth, fed):
        return True
    if any(_node(child, depth, _output(node)) for child in rest):
        return True
    return any(
        _node(child, depth) for child in node.named_children if child.type.endswith("redirect")
    )


_STATEMENTS = frozenset(["pipeline", "command", "list", "redirected_statement"])


def _command(node: tree_sitter.Node, depth: int, stdin: _Stdin) -> bool:
    from intent_ls.agents.shell.classify import _argv_of

    if _substitutions(node, depth):
        return True
    for child in node.named_children:
        if child.type == "variable_assignment" and _assignment(child, depth):
            return True
        if child.type == "herestring_redirect":
            stdin = _herestring(child)
    argv = _argv_of(node)
    return bool(argv) and _argv(argv, depth, stdin)


def _substitutions(node: tree_sitter.Node, depth: int) -> bool:
    """``$(…)`` and ``<(…)`` in a command's words run before it."""
    from intent_ls.agents.shell.classify import _descendants

    return any(
        _node(inner, depth)
        for child in _descendants(node)
        if child.type in ("command_substitution", "process_substitution")
        for inner in child.named_children
    )


def _assignment(node: tree_sitter.Node, depth: int) -> bool:
    """``GIT_EDITOR='intent-ls approve …' git commit``: an assigned text may be run."""
    from intent_ls.agents.shell.classify import _word

    if _substitutions(node, depth):
        return True
    value = node.child_by_field_name("value")
    if value is None:
        return False
    word = _word(value)
    return word.value is not None and _text(word.value, depth + 1)


def _evaluated_words(node: tree_sitter.Node, depth: int) -> bool:
    """``declare 'a[$(…)]'``, ``[[ -v 'a[$(…)]' ]]``: bash evaluates the subscript."""
    from intent_ls.agents.shell.classify import _word

    for child in node.named_children:
        value = _word(child).value
        if value is not None and ("$(" in value or "`" in value) and _text(value, depth + 1):
            return True
    return False


def _output(stage: tree_sitter.Node) -> _Stdin:
    """What a pipeline stage writes to the next one: ``echo``/``printf`` of fixed words
    and ``cat`` of a heredoc are read; anything else is only known at run time."""
    from intent_ls.agents.shell.classify import _argv_of, _name, _unwrap

    body = stage
    heredoc: _Stdin = None
    if stage.type == "redirected_statement":
        for child in stage.named_children:
            if child.type == "heredoc_redirect":
                heredoc = _heredoc(child)
        body = stage.child_by_field_name("body") or stage.named_children[0]
    args = _unwrap(_argv_of(body))
    if not args or any(w.value is None for w in args):
        return ...
    name = _name(args[0])
    if name in ("echo", "printf"):
        return " ".join(w.value or "" for w in args[1:] if not (w.value or "").startswith("-"))
    if name == "cat" and len(args) == 1:
        return heredoc if heredoc is not None else ...
    return ...


def _heredoc(node: tree_sitter.Node) -> _Stdin:
    body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
    if body is None or body.text is None:
        return ""
    return body.text.decode("utf-8", "replace")


def _herestring(node: tree_sitter.Node) -> _Stdin:
    from intent_ls.agents.shell.classify import _word

    target = node.named_children[-1] if node.named_children else None
    word = _word(target) if target is not None else None
    return ... if word is None or word.value is None else word.value


def _reads_stdin(node: tree_sitter.Node) -> bool:
    return any(not c.is_named and c.type == "<" for c in node.children)


def _static(node: tree_sitter.Node) -> bool:
    from intent_ls.agents.shell.classify import _word

    return _value(_word(node)) is not None


def _value(word: _Word) -> str | None:
    """The word's one value, or None when the shell computes or expands it (a variable,
    ``$(…)``, a glob, a brace expansion ``ap{p,}rove`` that the parser keeps as text)."""
    bare = word.text[:1] not in ("'", '"')
    if word.value is None or word.glob or (bare and "{" in word.text):
        return None
    return word.value


# -- one command line ---------------------------------------------------------------------


def _argv(words: Sequence[_Word], depth: int, stdin: _Stdin) -> bool:
    from intent_ls.agents.shell.classify import CHECKERS, _name, _unwrap

    if depth > MAX_DEPTH:
        return True
    args = _unwrap(_split_env(words))
    if not args:
        return False
    head, rest = args[0], args[1:]
    if _value(head) is None:
        # ``$x …`` may split into a program and the verb; ``"$NAME"`` stays one word.
        return not _QUOTED_NAME.fullmatch(head.text) or any(_verb_or_unknown(w) for w in rest)
    name = _name(head)
    if _is_program(name) or "intent_ls" in (head.value or "").split("/")[:-1]:
        return any(_verb_or_unknown(w) for w in rest)
    if name == "xargs":
        return _xargs(rest, depth)
    if name == "find":
        return _find(rest, depth)
    if name in _SHELLS:
        return _shell(rest, depth, stdin)
    if name == "eval":
        if any(w.value is None for w in rest):
            return True
        return _text(" ".join(w.value or "" for w in rest), depth + 1)
    if name in ("source", "."):
        return _script_operand(rest[:1], depth, stdin)
    if name == "alias":
        return any(w.value is None or _text(w.value.partition("=")[2], depth + 1) for w in rest)
    if _PYTHON.fullmatch(name):
        return _python(rest, depth, stdin)
    if name in _INTERPRETERS:
        return _interpreter(name, rest, depth, stdin)
    if name == "git":
        return _git(rest, depth)
    if name == "printf" and any(w.value == "-v" for w in rest):
        return _unknown(rest, depth, stdin)
    if name in _DATA_ONLY or name in CHECKERS:
        return False
    return _unknown(rest, depth, stdin)


def _split_env(words: Sequence[_Word]) -> list[_Word]:
    """``env -S 'intent-ls approve'``: env splits the string into the command's words
    (its other options and ``NAME=value`` words are left for the classifier to drop)."""
    from intent_ls.agents.shell.classify import _Word

    out = list(words)
    for _ in range(MAX_DEPTH):
        at = _split_string(out)
        if at is None:
            return out
        i, value, skip = at
        if value is None:
            out = [*out[:i], _Word(None, text="<env -S string>"), *out[i + skip :]]
            continue
        try:
            parts = [_Word(p, text=p) for p in shlex.split(value)]
        except ValueError:
            parts = [_Word(None, text=value)]
        out = [*out[:i], *parts, *out[i + skip :]]
    return [_Word(None, text=" ".join(w.text for w in out))] if _split_string(out) else out


def _split_string(words: Sequence[_Word]) -> tuple[int, str | None, int] | None:
    """Where an ``env`` has ``-S`` (wherever it stands: ``timeout 5 env -S …``, ``sudo -u
    me env -S …``): (index, string, words used)."""
    from intent_ls.agents.shell.classify import _name

    in_env = skip = False
    for i, word in enumerate(words):
        value = word.value
        if skip:
            skip = False
        elif value is not None and _name(word) == "env":
            in_env = True
        elif in_env and value in ("-u", "-C", "--unset", "--chdir"):
            skip = True
        elif in_env and value in ("-S", "--split-string"):
            following = words[i + 1].value if i + 1 < len(words) else ""
            return i, following, 2
        elif in_env and value is not None and value.startswith("--split-string="):
            return i, value.split("=", 1)[1], 1
        elif in_env and value is not None and value.startswith("-S"):
            return i, value[2:], 1
        elif value is None or not (value.startswith("-") or "=" in value):
            in_env = False
    return None


def _is_program(name: str) -> bool:
    return name.lower().replace("-", "").replace("_", "") == "intentls"


def _verb_or_unknown(word: _Word) -> bool:
    value = _value(word)
    return value is None or value == VERB


def _shell(rest: Sequence[_Word], depth: int, stdin: _Stdin) -> bool:
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


def _positional(args: Sequence[_Word]) -> bool:
    """``sh -c '"$0" approve' intent-ls``: the script's own words name the program."""
    from intent_ls.agents.shell.classify import _name

    return any(w.value is None or _is_program(_name(w)) or w.value == VERB for w in args)


def _script_operand(operand: Sequence[_Word], depth: int, stdin: _Stdin) -> bool:
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


def _python(rest: Sequence[_Word], depth: int, stdin: _Stdin) -> bool:
    from intent_ls.agents.shell.classify import _Word

    args = list(rest)
    while args and args[0].value is not None and args[0].value.startswith("-"):
        option = args.pop(0).value or ""
        if option == "-":
            break
        if option.startswith("-m"):
            module = option[2:] or (args.pop(0).value if args else "")
            if module is None or module.split(".")[0] == "intent_ls":
                return module is None or any(_verb_or_unknown(w) for w in args)
            # As the module's own program: ``-m pytest`` (data), ``-m runpy intent_ls …``
            return _argv([_Word(module, text=module), *args], depth + 1, stdin)
        if option.startswith("-c"):
            code = option[2:] or (args.pop(0).value if args else "")
            return _code(code, args, depth)
        if option in ("-W", "-X", "--check-hash-based-pycs") and args:
            args.pop(0)
    if args and args[0].value is not None and args[0].value not in _STDIN_FILES:
        path = args[0].value
        if _is_program(PurePosixPath(path).name) or "intent_ls" in path.split("/"):
            return any(_verb_or_unknown(w) for w in args[1:])
        return _unknown(args[1:], depth)
    if args and args[0].value is None:
        return any(_verb_or_unknown(w) for w in args[1:])
    return stdin is ... or (isinstance(stdin, str) and _mentions(stdin))


def _interpreter(name: str, rest: Sequence[_Word], depth: int, stdin: _Stdin) -> bool:
    flags = _INTERPRETERS[name]
    for i, word in enumerate(rest):
        if word.value in flags:
            code = rest[i + 1].value if i + 1 < len(rest) else ""
            return _code(code, rest[i + 2 :], depth)
    if any(w.value is None for w in rest):
        return True
    operands = [i for i, w in enumerate(rest) if not (w.value or "").startswith("-")]
    if operands:  # a script file, not read (the other layers stand); its arguments are
        return _unknown(rest[operands[0] + 1 :], depth)
    return stdin is ... or (isinstance(stdin, str) and _mentions(stdin))


def _code(code: str | None, args: Sequence[_Word], depth: int) -> bool:
    """Code given to an interpreter is not read as code: naming both the program and
    the verb, or the program with the verb among its arguments
    (``python -c 'import runpy; runpy.run_module("intent_ls")' approve``), or handing
    its arguments on (``perl -e 'exec @ARGV' intent-ls approve``) is refused."""
    if code is None or _mentions(code):
        return True
    if _PROGRAM.search(_NOISE.sub("", code).lower()) and any(_verb_or_unknown(w) for w in args):
        return True
    return _unknown(args, depth)


def _xargs(rest: Sequence[_Word], depth: int) -> bool:
    """What ``xargs`` runs, with the words it reads from stdin only known at run time."""
    from intent_ls.agents.shell.classify import _Word

    args = list(rest)
    marker = None
    while args and (args[0].value or "").startswith("-"):
        option = args.pop(0).value or ""
        if option in ("-I", "--replace") and args:
            marker = args[0].value
        elif option.startswith("-I") and len(option) > 2:
            marker = option[2:]
        elif option.startswith("--replace="):
            marker = option.split("=", 1)[1]
        elif option == "-i":
            marker = "{}"
        if option in _XARGS_VALUES and args:
            args.pop(0)
    if not args:
        return False  # ``xargs`` alone runs echo
    if marker:
        args = [_Word(None, text=w.text) if marker in (w.value or "") else w for w in args]
    return _argv([*args, _Word(None, text="<arguments from stdin>")], depth + 1, ...)


def _find(rest: Sequence[_Word], depth: int) -> bool:
    from intent_ls.agents.shell.classify import _Word

    values = [w.value for w in rest]
    for i, value in enumerate(values):
        if value in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next((j for j in range(i + 1, len(values)) if values[j] in (";", "+")), None)
            inner = [
                _Word(None, text="{}") if "{}" in (w.value or "") else w
                for w in rest[i + 1 : end if end is not None else len(rest)]
            ]
            if inner and _argv(inner, depth + 1, None):
                return True
    return False


def _git(rest: Sequence[_Word], depth: int) -> bool:
    """git's own arguments are data (``commit -m``), but the values of settings it may
    run (``-c core.pager=…``, ``alias.x='!…'``, ``config core.editor …``) are code."""
    values = [w.value for w in rest]
    if any(v is None for v in values):
        return any(_verb_or_unknown(w) for w in rest) or _unknown(rest, depth)
    settings: list[str] = []
    for i, value in enumerate(values):
        if value == "-c" and i + 1 < len(values):
            settings.append((values[i + 1] or "").partition("=")[2])
        elif (value or "").startswith("-c") and len(value or "") > 2:
            settings.append((value or "")[2:].partition("=")[2])
    if "config" in values:
        settings.extend(v or "" for v in values[values.index("config") + 1 :])
    return any(_text(s.removeprefix("!"), depth + 1) for s in settings if s)


def _unknown(rest: Sequence[_Word], depth: int, stdin: _Stdin = None) -> bool:
    """A program whose effects nobody listed may run its arguments (``watch``, ``su
    -c``, ``npx``, ``uv run``, ``strace``, ``ssh``): the verb after the program's name
    or after a word only known at run time, code naming both, or a shell, interpreter
    or wrapper later on its command line are refused."""
    from intent_ls.agents.shell.classify import WRAPPERS, _name

    runners = _SHELLS | WRAPPERS | {"eval", "xargs", "find", *_INTERPRETERS}
    values = [_value(w) for w in rest]
    for i, value in enumerate(values):
        if value == VERB and set(values[i + 1 :]) & _CODES:
            return True  # a renamed copy or link of the program: its verb and a code
    for i, word in enumerate(rest):
        if word.value is None or _is_program(_name(word)):
            if any(_verb_or_unknown(w) for w in rest[i + 1 :]) or (
                word.value is not None and i + 1 < len(rest) and rest[i + 1].value is None
            ):
                return True
            continue
        if _mentions(word.value):
            return True
        name = _name(word)
        if (name in runners or _PYTHON.fullmatch(name)) and _argv(rest[i:], depth + 1, stdin):
            return True
    return False
