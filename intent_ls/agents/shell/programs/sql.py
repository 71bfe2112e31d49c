"""Database clients (``psql``, ``mysql``, ``sqlite3``): the SQL they are given on their
command line or fed to them on stdin by the command line (a heredoc, a herestring, ``echo
… |``), read as keywords: dropping or erasing data is destructive, only reading
statements are safe, anything else (or SQL from a file) is unknown."""

from __future__ import annotations

from collections.abc import Sequence

from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.walk import DESTRUCTIVE, UNKNOWN, Walk

#: Client → its options that take a statement.
SQL_CLIENTS = {"psql": ("-c", "--command"), "mysql": ("-e", "--execute"), "sqlite3": ()}
_SQL_DESTRUCTIVE = frozenset(("drop", "truncate"))
#: Statements that erase or rewrite every row unless a ``WHERE`` narrows them.
_SQL_EVERY_ROW = frozenset(("delete", "update"))
_SQL_READING = frozenset({"select", "show", "describe", "explain", "with"})


def statements(name: str, rest: Sequence[Word]) -> list[str]:
    """The SQL on the command line (``sqlite3 DB 'SQL' …``: its operands after the file)."""
    if name == "sqlite3":
        return [w.value or "" for w in rest[1:] if not (w.value or "").startswith("-")]
    flags = SQL_CLIENTS[name]
    found: list[str] = []
    for i, arg in enumerate(rest):
        value = arg.value or ""
        if value in flags and i + 1 < len(rest):
            found.append(rest[i + 1].value or "")
        elif any(value.startswith(f + "=") for f in flags if f.startswith("--")):
            found.append(value.split("=", 1)[1])
    return found


def sql(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    # With no statement on its command line a client reads SQL from stdin: a heredoc,
    # a herestring, ``echo 'DROP TABLE x;' | psql``.
    given = statements(name, rest) or ([walk.stdin] if isinstance(walk.stdin, str) else [])
    tokens = [[t.lower() for t in sql_words(s)] for s in given]
    words = {t for statement in tokens for t in statement}
    if words & _SQL_DESTRUCTIVE or (words & _SQL_EVERY_ROW and "where" not in words):
        walk.raise_to(DESTRUCTIVE, f"{name} runs SQL that drops or erases data")
    elif not given or any(not t or t[0] not in _SQL_READING for t in tokens):
        walk.raise_to(UNKNOWN, f"{name} runs SQL intent-ls cannot vouch for")


def sql_words(statement: str) -> list[str]:
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


HANDLERS = dict.fromkeys(SQL_CLIENTS, sql)
