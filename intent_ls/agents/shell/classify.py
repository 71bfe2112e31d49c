"""What a shell command would do to the workspace, from its parse tree.

An agent's shell tool is the widest door around file-level governance: ``rm -rf src``,
``sed -i``, ``echo > file`` and ``git push --force`` never pass through a write tool.
The agent hooks ask here before a command runs. The command is read as bash reads it
(line continuations dropped, a tree too deep to walk refused: :mod:`.reading`) and
parsed with the tree-sitter-bash grammar, never matched with regexes over its text, so
quoting, pipelines, lists, subshells, ``$(...)``, heredocs and redirects are seen as the
shell sees them; ``bash -c``/``sh -c``/``eval`` strings are parsed recursively and wrappers
(``env``, ``sudo``, ``nice``, ``timeout``, ``command``, ``xargs`` …) are unwrapped.

The answer is one of four classes, the strongest finding winning:

- ``destructive``: destroys data or history (``rm``, ``find -delete``, ``git reset
  --hard``, ``git push --force``, ``dd``, ``mkfs``, ``chmod -R``, ``curl … | sh``, SQL
  ``DROP``/``TRUNCATE``): a human decides;
- ``unknown``: what it writes cannot be worked out (a program we do not know, a target
  computed at run time, a parse error): a human decides;
- ``write``: writes exactly the files in ``writes``, which front doors check against the
  scope like a file write;
- ``safe``: reads only.

A program nobody listed is ``unknown``: an unlisted program can do anything, so the
classifier errs towards asking (false positives) rather than letting a write through.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    import tree_sitter

SAFE = "safe"
WRITE = "write"
UNKNOWN = "unknown"
DESTRUCTIVE = "destructive"
_RANK = {SAFE: 0, WRITE: 1, UNKNOWN: 2, DESTRUCTIVE: 3}
#: ``bash -c`` inside ``bash -c`` …: deeper nesting is not analysed.
MAX_DEPTH = 8

#: Programs that only read (their output may still be redirected, which is seen).
READ_ONLY = frozenset(
    [
        "ls",
        "ll",
        "la",
        "cat",
        "bat",
        "less",
        "more",
        "head",
        "tail",
        "wc",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ack",
        "echo",
        "printf",
        "pwd",
        "cd",
        "pushd",
        "popd",
        "true",
        "false",
        "test",
        "[",
        "[[",
        "which",
        "type",
        "whereis",
        "whoami",
        "id",
        "date",
        "cal",
        "uname",
        "hostname",
        "env",
        "printenv",
        "sort",
        "uniq",
        "cut",
        "tr",
        "diff",
        "cmp",
        "comm",
        "stat",
        "file",
        "du",
        "df",
        "tree",
        "realpath",
        "readlink",
        "basename",
        "dirname",
        "seq",
        "yes",
        "sleep",
        "wait",
        "jobs",
        "nl",
        "od",
        "xxd",
        "hexdump",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "cksum",
        "jq",
        "yq",
        "column",
        "fmt",
        "fold",
        "paste",
        "join",
        "expand",
        "unexpand",
        "rev",
        "tac",
        "strings",
        "ps",
        "top",
        "uptime",
        "free",
        "lsof",
        "history",
        "alias",
        "set",
        "shopt",
        "exit",
        "return",
        "break",
        "continue",
        ":",
        "git-log",
        "man",
        "help",
        "info",
        "locale",
        "tput",
        "clear",
        "read",
        "shift",
        "getopts",
        "let",
        "local",
        "declare",
        "unset",
    ]
)
#: Test and lint runners: they read the tree (their caches live in ignored folders).
CHECKERS = frozenset(
    ["pytest", "mypy", "ruff", "flake8", "pylint", "eslint", "tsc", "pyright", "shellcheck"]
)
#: Wrappers that run the rest of the command line: how many leading options they take
#: (option → takes a value) is in :func:`_unwrap`.
WRAPPERS = frozenset(
    [
        "sudo",
        "doas",
        "env",
        "nice",
        "ionice",
        "timeout",
        "command",
        "exec",
        "nohup",
        "time",
        "stdbuf",
        "builtin",
        "setsid",
    ]
)
SHELLS = frozenset(["bash", "sh", "zsh", "dash", "ksh"])
INTERPRETERS_FROM_STDIN = frozenset(
    ["sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl", "ruby", "node"]
)
#: ``git`` subcommands that touch nothing outside ``.git/`` (never governed).
GIT_SAFE = frozenset(
    [
        "status",
        "log",
        "show",
        "diff",
        "blame",
        "grep",
        "ls-files",
        "ls-tree",
        "rev-parse",
        "describe",
        "shortlog",
        "reflog",
        "fetch",
        "remote",
        "config",
        "tag",
        "add",
        "commit",
        "notes",
        "cat-file",
        "branch",
        "show-ref",
        "for-each-ref",
        "version",
        "help",
    ]
)
#: ``git`` subcommands that rewrite working-tree files nobody can name in advance.
GIT_WORKTREE = frozenset(
    [
        "checkout",
        "switch",
        "merge",
        "pull",
        "rebase",
        "cherry-pick",
        "revert",
        "am",
        "apply",
        "stash",
        "restore",
        "mv",
        "rm",
    ]
)
#: ``git`` subcommands that rewrite history wholesale.
HISTORY_REWRITES = frozenset(["filter-branch", "filter-repo", "replace"])
#: Programs whose every run is irreversible: signals, shutdowns, database drops.
IRREVERSIBLE = frozenset(
    ["kill", "pkill", "killall", "dropdb", "dropuser", "shutdown", "reboot", "halt", "poweroff"]
)
#: Tools that act on something outside the machine (a registry, a cloud, a cluster):
#: the subcommands (any operand) that publish or delete there, which nobody can undo.
REMOTE_IRREVERSIBLE: dict[str, frozenset[str]] = {
    "npm": frozenset(["publish", "unpublish", "deprecate"]),
    "yarn": frozenset(["publish", "npm"]),
    "pnpm": frozenset(["publish"]),
    "cargo": frozenset(["publish", "yank", "owner"]),
    "twine": frozenset(["upload", "register"]),
    "gem": frozenset(["push", "yank"]),
    "poetry": frozenset(["publish"]),
    "uv": frozenset(["publish"]),
    "flit": frozenset(["publish"]),
    "hatch": frozenset(["publish"]),
    "docker": frozenset(["push", "rm", "rmi", "prune", "kill"]),
    "podman": frozenset(["push", "rm", "rmi", "prune", "kill"]),
    "kubectl": frozenset(["delete", "drain", "replace", "scale"]),
    "helm": frozenset(["uninstall", "delete", "rollback"]),
    "terraform": frozenset(["destroy", "apply"]),
    "tofu": frozenset(["destroy", "apply"]),
    "pulumi": frozenset(["destroy", "up"]),
    "gh": frozenset(["delete", "merge", "publish"]),
    "aws": frozenset(["rm", "rb", "delete", "terminate-instances"]),
    "gsutil": frozenset(["rm", "rb"]),
    "gcloud": frozenset(["delete"]),
    "az": frozenset(["delete"]),
    "heroku": frozenset(["apps:destroy", "destroy", "pg:reset"]),
    "vercel": frozenset(["remove", "rm"]),
    "fly": frozenset(["destroy"]),
    "redis-cli": frozenset(["flushall", "flushdb"]),
}
#: Where a command may write outside the workspace without anyone asking.
SCRATCH_DIRS = ("/tmp/", "/var/tmp/", "/dev/")
SQL_CLIENTS = {"psql": ("-c", "--command"), "mysql": ("-e", "--execute"), "sqlite3": ()}
_SQL_DESTRUCTIVE = ("drop", "truncate")
_SQL_READING = frozenset({"select", "show", "describe", "explain", "with"})


@attrs.frozen
class Classification:
    klass: str
    writes: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"class": self.klass, "writes": list(self.writes), "reasons": list(self.reasons)}


@cache
def _parser() -> tree_sitter.Parser:
    import tree_sitter

    return tree_sitter.Parser(tree_sitter.Language(_bash_language()))


def _bash_language() -> object:
    """The Bash grammar. Its package module imports ``importlib.resources`` for highlight
    queries a classifier never reads, which costs a hook process more than the grammar
    itself: the compiled binding is loaded alone where it is found, else the package."""
    from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec, PathFinder

    found = PathFinder.find_spec("tree_sitter_bash")
    for folder in (found.submodule_search_locations or ()) if found else ():
        for suffix in EXTENSION_SUFFIXES:
            path = os.path.join(folder, "_binding" + suffix)
            if os.path.isfile(path):
                loader = ExtensionFileLoader("tree_sitter_bash._binding", path)
                binding = loader.create_module(ModuleSpec(loader.name, loader, origin=path))
                loader.exec_module(binding)
                return binding.language()
    import tree_sitter_bash

    return tree_sitter_bash.language()


@attrs.define
class _Word:
    """A shell word: its value when it is static, else None; ``glob`` if it would expand."""

    value: str | None
    glob: bool = False
    text: str = ""


@attrs.define
class _Walk:
    root: str
    cwd: str
    klass: str = SAFE
    #: False once a ``cd`` went where the classifier cannot follow.
    cwd_known: bool = True
    writes: list[str] = attrs.field(factory=list)
    reasons: list[str] = attrs.field(factory=list)

    def raise_to(self, klass: str, reason: str) -> None:
        if _RANK[klass] > _RANK[self.klass]:
            self.klass = klass
        if reason not in self.reasons:
            self.reasons.append(reason)

    def write(self, word: _Word, what: str) -> None:
        """Records a written target; a computed or globbed one makes the command unknown."""
        if word.value is None or word.glob:
            self.raise_to(UNKNOWN, f"{what} writes {word.text!r}, only known at run time")
            return
        if word.value in ("/dev/null", "/dev/stdout", "/dev/stderr", "-"):
            return
        if not self.cwd_known and not word.value.startswith(("/", "~")):
            self.raise_to(UNKNOWN, f"{what} writes {word.value!r} from a directory not known")
            return
        path = self.relative(word.value)
        if path not in self.writes:
            self.writes.append(path)
        if path.startswith("~") or (path.startswith("/") and not path.startswith(SCRATCH_DIRS)):
            self.raise_to(DESTRUCTIVE, f"{what} writes {path}, outside the workspace")
        else:
            self.raise_to(WRITE, f"{what} writes {path}")

    def relative(self, value: str) -> str:
        """Workspace-relative when inside the workspace, else the absolute path."""
        if value.startswith("~"):
            return value
        joined = os.path.normpath(os.path.join(self.cwd, value))
        if joined == self.root:
            return "."
        if joined.startswith(self.root + os.sep):
            return PurePosixPath(joined[len(self.root) + 1 :]).as_posix()
        return joined


def classify_command(
    command: str, root: str | os.PathLike[str], cwd: str | None = None
) -> Classification:
    """Classifies ``command`` as run in ``cwd`` (default: the workspace ``root``)."""
    root_s = os.path.normpath(os.fspath(root))
    walk = _Walk(root_s, os.path.normpath(cwd or root_s))
    _classify_text(walk, command, 0)
    return Classification(walk.klass, tuple(walk.writes), tuple(walk.reasons))


def _classify_text(walk: _Walk, command: str, depth: int) -> None:
    from intent_ls.agents.shell.reading import join_continuations, nesting_budget, too_deep

    if depth > MAX_DEPTH:
        walk.raise_to(UNKNOWN, "shell strings nested too deeply to analyse")
        return
    tree = _parser().parse(join_continuations(command).encode("utf-8"))
    deep = too_deep(tree.root_node, nesting_budget(depth))
    if deep is not None:
        # Nothing in it can be read, so nothing says what it reaches: held for a human.
        walk.raise_to(DESTRUCTIVE, deep)
        return
    if tree.root_node.has_error:
        walk.raise_to(UNKNOWN, "the command does not parse as shell")
    _statement(walk, tree.root_node, depth)


def _statement(walk: _Walk, node: tree_sitter.Node, depth: int) -> None:
    kind = node.type
    if kind == "command":
        _command(walk, node, depth)
    elif kind == "pipeline":
        _pipeline(walk, node, depth)
    elif kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
        _redirect(walk, node, depth)
    elif kind in ("command_substitution", "process_substitution"):
        for child in node.named_children:
            _statement(walk, child, depth)
    elif kind == "declaration_command" or kind == "unset_command":
        _nested_in_words(walk, node, depth)
    elif kind in ("for_statement", "c_style_for_statement", "while_statement", "if_statement",
                  "case_statement", "case_item", "elif_clause", "else_clause", "do_group",
                  "compound_statement", "subshell", "list", "program", "negated_command",
                  "redirected_statement", "function_definition", "test_command",
                  "variable_assignment", "variable_assignments"):  # fmt: skip
        cwd = walk.cwd
        for child in node.children:
            _statement(walk, child, depth)
        if kind == "subshell":
            walk.cwd = cwd  # ``(cd x; …)`` does not move the caller
    elif kind == "ERROR":
        for child in node.children:
            _statement(walk, child, depth)
    else:
        _nested_in_words(walk, node, depth)


def _nested_in_words(walk: _Walk, node: tree_sitter.Node, depth: int) -> None:
    """Command substitutions inside words run too: classify them."""
    for child in _descendants(node):
        if child.type in ("command_substitution", "process_substitution"):
            for inner in child.named_children:
                _statement(walk, inner, depth)


def _descendants(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    for child in node.children:
        yield child
        if child.type not in ("command_substitution", "process_substitution"):
            yield from _descendants(child)


def _pipeline(walk: _Walk, node: tree_sitter.Node, depth: int) -> None:
    stages = [c for c in node.named_children]
    for stage in stages:
        _statement(walk, stage, depth)
    # ``curl … | sh``: code fetched from somewhere runs unseen.
    for before, after in itertools.pairwise(stages):
        fetch = _argv_of(before)
        run = _argv_of(after)
        if fetch and run and _name(fetch[0]) in ("curl", "wget"):
            program = _unwrap(run)
            if program and _name(program[0]) in INTERPRETERS_FROM_STDIN:
                walk.raise_to(DESTRUCTIVE, "pipes downloaded code into an interpreter")


def _argv_of(node: tree_sitter.Node) -> list[_Word]:
    if node.type == "redirected_statement":
        inner = node.child_by_field_name("body") or (node.named_children or [None])[0]
        return _argv_of(inner) if inner is not None else []
    if node.type != "command":
        return []
    return [_word(c) for c in node.named_children if c.type not in ("variable_assignment",) and
            not c.type.endswith("redirect")]  # fmt: skip


def _name(word: _Word) -> str:
    return PurePosixPath(word.value).name if word.value else ""


def _word(node: tree_sitter.Node) -> _Word:
    text = node.text.decode("utf-8", "replace") if node.text is not None else ""
    kind = node.type
    if kind == "command_name":
        return _word(node.named_children[0]) if node.named_children else _Word(None, text=text)
    if kind in ("word", "number"):
        glob = any(ch in text for ch in "*?[") and not text.startswith("-")
        return _Word(_unescape(text), glob, text)
    if kind == "raw_string":
        return _Word(text[1:-1], False, text)
    if kind == "string":
        parts = []
        for child in node.named_children:
            if child.type != "string_content":
                return _Word(None, text=text)
            parts.append(child.text.decode("utf-8", "replace") if child.text else "")
        return _Word(_unescape("".join(parts), '"\\$`'), False, text)
    if kind == "concatenation":
        words = [_word(c) for c in node.named_children]
        if any(w.value is None for w in words):
            return _Word(None, text=text)
        return _Word("".join(w.value or "" for w in words), any(w.glob for w in words), text)
    return _Word(None, text=text)


def _unescape(text: str, escapable: str | None = None) -> str:
    """Drops the backslash before any character (bare words), or only before those in
    ``escapable`` (inside double quotes, where the rest keep their backslash)."""
    out, i = [], 0
    while i < len(text):
        nxt = text[i + 1] if i + 1 < len(text) else None
        if text[i] == "\\" and nxt is not None and (escapable is None or nxt in escapable):
            out.append(nxt)
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _redirect(walk: _Walk, node: tree_sitter.Node, depth: int) -> None:
    operator = ""
    target: tree_sitter.Node | None = None
    for child in node.children:
        if not child.is_named:
            operator = child.type
        elif child.type in ("file_redirect", "heredoc_redirect"):
            _redirect(walk, child, depth)
        elif child.type == "heredoc_body":
            _nested_in_words(walk, child, depth)  # ``$(…)`` in an unquoted body runs
        elif child.type in ("pipeline", "command", "list", "redirected_statement"):
            _statement(walk, child, depth)  # ``cat <<EOF | sh``: the pipe continues here
        elif child.type not in ("file_descriptor", "heredoc_start", "heredoc_body",
                                "heredoc_end", "heredoc_content"):  # fmt: skip
            target = child
    if target is not None:
        _nested_in_words(walk, node, depth)
    if node.type != "file_redirect" or target is None:
        return
    to_file = operator in (">", ">>", "&>", "&>>", ">|", "<>")
    if to_file or (operator == ">&" and target.type != "number"):
        walk.write(_word(target), f"redirect {operator}")


def _command(walk: _Walk, node: tree_sitter.Node, depth: int) -> None:
    for child in node.named_children:
        if child.type.endswith("redirect"):
            _redirect(walk, child, depth)
    _nested_in_words(walk, node, depth)
    argv = _argv_of(node)
    if not argv:
        return  # ``VAR=x`` alone
    _program(walk, argv, depth)


def _unwrap(argv: Sequence[_Word]) -> list[_Word]:
    """Drops wrappers (``sudo -u x``, ``env A=1``, ``nice -n 5``, ``timeout 10`` …) and
    ``VAR=x`` words, returning the command they run."""
    args = list(argv)
    while args:
        name = _name(args[0])
        if name not in WRAPPERS:
            return args
        args = args[1:]
        takes_value = {
            "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"},
            "doas": {"-u", "-C"},
            "env": {"-u", "-C", "-S", "--unset", "--chdir"},
            "nice": {"-n", "--adjustment"},
            "ionice": {"-c", "-n", "-p", "-t"},
            "timeout": {"-s", "--signal", "-k", "--kill-after"},
            "stdbuf": {"-i", "-o", "-e"},
        }.get(name, set())
        while (
            args
            and args[0].value is not None
            and (args[0].value.startswith("-") or (name == "env" and "=" in args[0].value))
        ):
            option = args.pop(0).value or ""
            if option == "--":
                break
            if option in takes_value and args:
                args.pop(0)
        if name == "timeout" and args:
            args = args[1:]  # the duration
    return args


def _options(args: Sequence[_Word]) -> tuple[set[str], list[_Word]]:
    """Short flags (``-rf`` → r, f), long ones (``--force``) and the operands."""
    flags: set[str] = set()
    operands: list[_Word] = []
    ended = False
    for arg in args:
        value = arg.value
        if not ended and value == "--":
            ended = True
        elif not ended and value and value.startswith("--"):
            flags.add(value.split("=", 1)[0])
        elif not ended and value and value.startswith("-") and len(value) > 1:
            flags.update(value[1:])
        else:
            operands.append(arg)
    return flags, operands


def _program(walk: _Walk, argv: Sequence[_Word], depth: int) -> None:
    args = _unwrap(argv)
    if not args:
        return
    head = args[0]
    if head.value is None:
        # Nothing can say what it reaches outside the workspace: held, not verified.
        walk.raise_to(DESTRUCTIVE, f"runs a program only known at run time ({head.text})")
        return
    name = _name(head)
    rest = args[1:]
    if name == "xargs":
        _xargs(walk, rest, depth)
        return
    handler = _HANDLERS.get(name)
    if handler is not None:
        handler(walk, name, rest, depth)
    elif name.startswith("mkfs") or name in ("shred", "wipefs", "fdisk", "parted", "mkswap"):
        walk.raise_to(DESTRUCTIVE, f"{name} destroys data")
    elif name in IRREVERSIBLE:
        walk.raise_to(DESTRUCTIVE, f"{name} cannot be undone")
    elif name in REMOTE_IRREVERSIBLE:
        _remote(walk, name, rest)
    elif name in READ_ONLY or name in CHECKERS:
        if name in ("cd", "pushd", "popd"):
            _cd(walk, rest if name != "popd" else [_Word(None)])
    elif name in SHELLS or name == "eval":
        _shell(walk, name, rest, depth)
    elif name in SQL_CLIENTS:
        _sql(walk, name, rest)
    else:
        walk.raise_to(UNKNOWN, f"{name} is not a program intent-ls knows the effects of")


def _remote(walk: _Walk, name: str, rest: Sequence[_Word]) -> None:
    """A publish or a delete on a registry, cloud or cluster is held; the rest of what
    these tools do (build, test, install, plan, list) runs and is judged by its effects."""
    words = {(w.value or "").lower() for w in rest}
    if name == "aws":
        words |= {w.split("-", 1)[0] for w in words if w.startswith(("delete-", "terminate-"))}
    hit = sorted(words & REMOTE_IRREVERSIBLE[name])
    if hit:
        walk.raise_to(DESTRUCTIVE, f"{name} {hit[0]} publishes or deletes where nothing undoes it")
    else:
        walk.raise_to(UNKNOWN, f"{name} is not a program intent-ls knows the effects of")


def _cd(walk: _Walk, rest: Sequence[_Word]) -> None:
    """Follows ``cd DIR``; after ``cd`` alone, ``cd -``, a computed or globbed directory
    the working directory is unknown, and so is every relative target after it."""
    _, operands = _options(rest)
    target = operands[0] if operands else None
    if target is None or target.value is None or target.glob or target.value[:1] in ("-", "~"):
        walk.cwd_known = False
    else:
        walk.cwd = os.path.normpath(os.path.join(walk.cwd, target.value))


def _shell(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    if name == "eval":
        if all(w.value is not None for w in rest):
            _classify_text(walk, " ".join(w.value or "" for w in rest), depth + 1)
        else:
            walk.raise_to(UNKNOWN, "eval of a string only known at run time")
        return
    for i, arg in enumerate(rest):
        value = arg.value or ""
        if value.startswith("-") and "c" in value.lstrip("-") and not value.startswith("--"):
            script = rest[i + 1] if i + 1 < len(rest) else None
            if script is None or script.value is None:
                walk.raise_to(UNKNOWN, f"{name} -c with a script only known at run time")
            else:
                _classify_text(walk, script.value, depth + 1)
            return
    walk.raise_to(UNKNOWN, f"{name} runs a script intent-ls does not read")


def _sql(walk: _Walk, name: str, rest: Sequence[_Word]) -> None:
    flags = SQL_CLIENTS[name]
    statements: list[str] = []
    for i, arg in enumerate(rest):
        value = arg.value or ""
        if value in flags and i + 1 < len(rest):
            statements.append(rest[i + 1].value or "")
        elif any(value.startswith(f + "=") for f in flags if f.startswith("--")):
            statements.append(value.split("=", 1)[1])
    if name == "sqlite3":
        statements = [w.value or "" for w in rest[1:] if not (w.value or "").startswith("-")]
    tokens = [[t.lower() for t in _sql_words(s)] for s in statements]
    words = {t for statement in tokens for t in statement}
    if words & set(_SQL_DESTRUCTIVE) or ("delete" in words and "where" not in words):
        walk.raise_to(DESTRUCTIVE, f"{name} runs SQL that drops or erases data")
    elif not statements or any(not t or t[0] not in _SQL_READING for t in tokens):
        walk.raise_to(UNKNOWN, f"{name} runs SQL intent-ls cannot vouch for")


def _sql_words(statement: str) -> list[str]:
    """SQL keywords, outside quoted literals (a tokenizer, not a pattern over text)."""
    words, current, quote = [], [], ""
    for ch in statement:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch.isalnum() or ch == "_":
            current.append(ch)
            continue
        if current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return words


def _xargs(walk: _Walk, rest: Sequence[_Word], depth: int) -> None:
    takes_value = {"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a"}
    args = list(rest)
    while args and (args[0].value or "").startswith("-"):
        option = args.pop(0).value or ""
        if option in takes_value and args:
            args.pop(0)
    if not args:
        return  # ``xargs`` alone echoes
    inner = _Walk(walk.root, walk.cwd)
    _program(inner, [*args, _Word(None, text="<arguments from stdin>")], depth)
    # What it writes is named at run time: a write is unknown, never a known write.
    klass = UNKNOWN if inner.klass == WRITE else inner.klass
    for reason in inner.reasons:
        walk.raise_to(klass, f"xargs: {reason}")


def _rm(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    flags, operands = _options(rest)
    for target in operands:
        walk.write(target, name)
    recursive = " -r" if flags & {"r", "R", "--recursive"} else ""
    walk.raise_to(DESTRUCTIVE, f"{name}{recursive} deletes files")


def _rmdir(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    for target in _options(rest)[1]:
        walk.write(target, name)


def _targets_last(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    """``cp``/``install``/``ln``: the last operand (or ``-t DIR``) is written."""
    values = [w.value for w in rest]
    for flag in ("-t", "--target-directory"):
        if flag in values:
            i = values.index(flag)
            if i + 1 < len(rest):
                walk.write(rest[i + 1], name)
            return
    _, operands = _options(rest)
    if len(operands) >= 2 or (name == "install" and operands):
        walk.write(operands[-1], name)
    elif operands:
        walk.raise_to(UNKNOWN, f"{name} with a single operand")


def _mv(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    _, operands = _options(rest)
    for target in operands:
        walk.write(target, name)  # the sources disappear, the target appears


def _each_operand(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    """``touch``/``mkdir``/``tee``/``truncate``: every operand is written."""
    skip_value = {
        "truncate": {"-s", "--size", "-r", "--reference"},
        "mkdir": {"-m", "--mode"},
        "touch": {"-d", "-t", "-r", "--date", "--reference"},
    }.get(name, set())
    args = list(rest)
    kept = []
    while args:
        arg = args.pop(0)
        if arg.value in skip_value and args:
            args.pop(0)
        else:
            kept.append(arg)
    for target in _options(kept)[1]:
        walk.write(target, name)
    if name == "truncate":
        walk.raise_to(DESTRUCTIVE, "truncate cuts files short")


def _sed(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    in_place = False
    script_given = False
    operands: list[_Word] = []
    args = list(rest)
    while args:
        arg = args.pop(0)
        value = arg.value or ""
        if value in ("-e", "--expression", "-f", "--file") and args:
            args.pop(0)
            script_given = True
        elif value.startswith("--in-place") or (
            value.startswith("-") and not value.startswith("--") and "i" in value[1:]
            and name in ("sed", "perl")
        ):  # fmt: skip
            in_place = True
        elif name == "perl" and value.startswith("-") and ("e" in value[1:] or "E" in value[1:]):
            if args:
                args.pop(0)
            script_given = True
        elif value.startswith("-") and len(value) > 1:
            continue
        else:
            operands.append(arg)
    files = operands if script_given else operands[1:]
    if name == "perl" and not in_place:
        walk.raise_to(UNKNOWN, "perl runs a script intent-ls does not read")
        return
    if in_place:
        for target in files:
            walk.write(target, f"{name} -i")


def _dd(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    walk.raise_to(DESTRUCTIVE, "dd overwrites raw data")
    for arg in rest:
        if arg.value and arg.value.startswith("of="):
            walk.write(_Word(arg.value[3:], False, arg.text), "dd")


def _chmod(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    flags, operands = _options(rest)
    if flags & {"R", "--recursive"}:
        walk.raise_to(DESTRUCTIVE, f"{name} -R changes a whole tree")
    for target in operands[1:]:
        walk.write(target, name)


def _find(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    values = [w.value or "" for w in rest]
    if "-delete" in values:
        walk.raise_to(DESTRUCTIVE, "find -delete deletes every match")
    for i, value in enumerate(values):
        if value in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next(
                (j for j in range(i + 1, len(values)) if values[j] in (";", "+")), len(values)
            )
            inner = [_Word(None, text="{}") if w.value == "{}" else w for w in rest[i + 1 : end]]
            if inner:
                sub = _Walk(walk.root, walk.cwd)
                _program(sub, inner, depth)
                for reason in sub.reasons:
                    walk.raise_to(sub.klass, f"find {value}: {reason}")
    for flag in ("-fprint", "-fprint0", "-fprintf", "-fls"):
        if flag in values and values.index(flag) + 1 < len(rest):
            walk.write(rest[values.index(flag) + 1], "find")


def _git(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    args = list(rest)
    while args and (args[0].value or "").startswith("-"):
        option = args.pop(0).value or ""
        if option in ("-C", "-c", "--git-dir", "--work-tree") and args:
            args.pop(0)
    if not args or args[0].value is None:
        walk.raise_to(UNKNOWN, "git with a subcommand only known at run time")
        return
    sub = args[0].value
    flags, operands = _options(args[1:])
    values = {w.value for w in args[1:]}
    if sub == "push" and (
        flags & {"f", "--force", "--force-with-lease", "--mirror", "--delete", "d", "--prune"}
        or any((w.value or "").startswith(("+", ":")) for w in operands)
    ):
        walk.raise_to(DESTRUCTIVE, "git push rewrites or deletes remote history")
    elif sub == "push":
        return
    elif sub == "reset" and "--hard" in flags:
        walk.raise_to(DESTRUCTIVE, "git reset --hard discards uncommitted work")
    elif sub == "clean" and flags & {"f", "--force"}:
        walk.raise_to(DESTRUCTIVE, "git clean -f deletes untracked files")
    elif sub == "branch" and (
        "D" in flags or (flags & {"d", "--delete"} and flags & {"f", "--force"})
    ):
        walk.raise_to(DESTRUCTIVE, "git branch -D deletes unmerged work")
    elif sub in ("checkout", "restore") and (
        "." in values or "--" in values or flags & {"f", "--force"}
    ):
        walk.raise_to(DESTRUCTIVE, f"git {sub} discards uncommitted changes")
    elif sub in HISTORY_REWRITES or (
        sub == "reflog" and operands and operands[0].value in ("expire", "delete")
    ):
        walk.raise_to(DESTRUCTIVE, f"git {sub} rewrites or drops history")
    elif (sub == "branch" and flags & {"f", "--force", "M", "C"}) or (
        sub == "tag" and flags & {"d", "--delete", "f", "--force"}
    ):
        walk.raise_to(DESTRUCTIVE, f"git {sub} moves or deletes a ref")
    elif sub == "update-ref" and flags & {"d", "--stdin"}:
        walk.raise_to(DESTRUCTIVE, "git update-ref deletes or rewrites refs")
    elif sub == "gc" and any((w.value or "").startswith("--prune") for w in args[1:]):
        walk.raise_to(DESTRUCTIVE, "git gc --prune drops unreachable commits")
    elif sub == "stash" and operands and operands[0].value in ("drop", "clear"):
        walk.raise_to(DESTRUCTIVE, "git stash drop/clear deletes stashed work")
    elif sub == "rm":
        for target in operands:
            walk.write(target, "git rm")
        walk.raise_to(DESTRUCTIVE, "git rm deletes files")
    elif sub in GIT_SAFE:
        return
    elif sub in GIT_WORKTREE:
        walk.raise_to(UNKNOWN, f"git {sub} rewrites working-tree files not known in advance")
    else:
        walk.raise_to(UNKNOWN, f"git {sub} is not a subcommand intent-ls knows the effects of")


def _download(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    flags = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document")}[name]
    for i, arg in enumerate(rest):
        if arg.value in flags and i + 1 < len(rest):
            walk.write(rest[i + 1], name)
    if name == "wget" and not any(a.value in flags for a in rest):
        walk.raise_to(UNKNOWN, "wget saves under a name taken from the URL")


def _interpreter(walk: _Walk, name: str, rest: Sequence[_Word], depth: int) -> None:
    """``python -m pytest`` and the like only read; any other script is unknown."""
    values = [w.value for w in rest]
    if "-m" in values:
        i = values.index("-m")
        module = values[i + 1] if i + 1 < len(values) else None
        if module in CHECKERS or module in ("json.tool", "pydoc", "this"):
            return
        if module in REMOTE_IRREVERSIBLE:
            _remote(walk, module, rest[i + 2 :])
            return
    if values in (["--version"], ["-V"]):
        return
    walk.raise_to(UNKNOWN, f"{name} runs code intent-ls does not read")


_HANDLERS = {
    "rm": _rm,
    "unlink": _rm,
    "rmdir": _rmdir,
    "cp": _targets_last,
    "install": _targets_last,
    "ln": _targets_last,
    "mv": _mv,
    "touch": _each_operand,
    "mkdir": _each_operand,
    "tee": _each_operand,
    "truncate": _each_operand,
    "sed": _sed,
    "perl": _sed,
    "dd": _dd,
    "chmod": _chmod,
    "chown": _chmod,
    "chgrp": _chmod,
    "find": _find,
    "git": _git,
    "curl": _download,
    "wget": _download,
    "python": _interpreter,
    "python3": _interpreter,
}
