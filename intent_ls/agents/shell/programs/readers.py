"""Programs that only read (their output may still be redirected, which is seen), the
test and lint runners (their caches live in ignored folders), and ``cd``, which the
classifier follows so that later relative targets are resolved where they land."""

from __future__ import annotations

import os
from collections.abc import Sequence

from intent_ls.agents.shell.model import Word, options
from intent_ls.agents.shell.walk import Walk

READ_ONLY = frozenset(
    [
        "ls", "ll", "la", "cat", "bat", "less", "more", "head", "tail", "wc", "grep",
        "egrep", "fgrep", "rg", "ag", "ack", "echo", "printf", "pwd", "cd", "pushd", "popd",
        "true", "false", "test", "[", "[[", "which", "type", "whereis", "whoami", "id",
        "date", "cal", "uname", "hostname", "env", "printenv", "sort", "uniq", "cut", "tr",
        "diff", "cmp", "comm", "stat", "file", "du", "df", "tree", "realpath", "readlink",
        "basename", "dirname", "seq", "yes", "sleep", "wait", "jobs", "nl", "od", "xxd",
        "hexdump", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "jq", "yq",
        "column", "fmt", "fold", "paste", "join", "expand", "unexpand", "rev", "tac",
        "strings", "ps", "top", "uptime", "free", "lsof", "history", "alias", "set",
        "shopt", "exit", "return", "break", "continue", ":", "git-log", "man", "help",
        "info", "locale", "tput", "clear", "read", "shift", "getopts", "let", "local",
        "declare", "unset",
    ]
)  # fmt: skip
#: Test and lint runners: they read the tree (their caches live in ignored folders).
CHECKERS = frozenset(
    ["pytest", "mypy", "ruff", "flake8", "pylint", "eslint", "tsc", "pyright", "shellcheck"]
)


def reads(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    """Only reads."""


def cd(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    """Follows ``cd DIR``; after ``cd`` alone, ``cd -``, ``popd``, a computed or globbed
    directory the working directory is unknown, and so is every relative target after it."""
    _, operands = options(rest if name != "popd" else [Word(None)])
    target = operands[0] if operands else None
    if target is None or target.value is None or target.glob or target.value[:1] in ("-", "~"):
        walk.cwd_known = False
    else:
        walk.cwd = os.path.normpath(os.path.join(walk.cwd, target.value))


HANDLERS = {**dict.fromkeys(READ_ONLY | CHECKERS, reads), "cd": cd, "pushd": cd, "popd": cd}
