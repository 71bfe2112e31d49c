"""Codex's own exec-policy rules (``prefix_rule`` in ``*.rules`` files), asked whether
any of them speaks to a shell command as the model wrote it.

Codex 0.169.0 runs the PreToolUse hook first and its exec policy after, on the command
the hook returned (its rejection quotes the rewritten script). The policy splits a
plain script into its commands, so a ``forbidden`` or ``prompt`` rule still matches the
verbatim copy behind the write barrier (:mod:`intent_ls.agents.barrier`); but ``allow``
needs every command of the script to match, and the barrier's ``exec`` matches none:
a command the user allowed — which Codex runs outside its sandbox, without asking —
would run sandboxed instead. So where a rule could speak to the command as written,
the hook leaves it unwrapped: Codex judges it as the user meant, and what it changes is
verified after it ran.

Rules are read from ``$CODEX_HOME/rules`` (default ``~/.codex``), the project's
``.codex/rules`` and ``/etc/codex/rules``. Matching leans towards "could match": a
rules file that cannot be read counts for every command, and so does a command the
shell splitter cannot read.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

MAX_FILE = 1024 * 1024
_PARTS = re.compile(r"&&|\|\||\$\(|[;&|\n()`{}]")
#: One element of a ``prefix_rule`` pattern: a word, or a list of alternative words.
Pattern = list[frozenset[str]]


def _folders(root: Path) -> list[Path]:
    home = os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
    return [Path("/etc/codex/rules"), Path(home) / "rules", root / ".codex" / "rules"]


def _rule_files(root: Path) -> Iterator[Path]:
    for folder in _folders(root):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        yield from (folder / name for name in names if name.endswith(".rules"))


def _patterns(text: str) -> list[Pattern] | None:
    """Every ``prefix_rule``'s pattern (Starlark reads as Python here), or None when the
    file is not something this reads."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "prefix_rule"):
            continue
        given = {k.arg: k.value for k in node.keywords}
        value = given.get("pattern", node.args[0] if node.args else None)
        try:
            words = ast.literal_eval(value) if value is not None else None
        except ValueError:
            return None
        if not isinstance(words, list) or not words:
            return None
        found.append([frozenset([w] if isinstance(w, str) else map(str, w)) for w in words])
    return found


def _commands(command: str) -> list[list[str]] | None:
    out = []
    for part in _PARTS.split(command):
        try:
            words = shlex.split(part)
        except ValueError:
            return None
        if words:
            out.append(words)
    return out


def _prefixes(pattern: Pattern, words: list[str]) -> bool:
    if len(words) < len(pattern):
        return False
    first = {words[0], os.path.basename(words[0])}
    return bool(first & pattern[0]) and all(
        w in p for w, p in zip(words[1:], pattern[1:], strict=False)
    )


def rule_for(command: str, root: Path) -> str | None:
    """The rules file with a rule that could speak to ``command`` as written, or None
    when no rule does."""
    from intent_ls.common.safe_io import read_regular

    commands: list[list[str]] | None = []
    for path in _rule_files(root):
        try:
            patterns = _patterns(read_regular(path, MAX_FILE, follow=True).decode("utf-8"))
        except (OSError, ValueError):
            patterns = None
        if patterns is None:
            return f"an unreadable rules file ({path})"
        if commands == []:
            commands = _commands(command)
        if commands is None:
            return f"rules in {path} (the command's words cannot be read)"
        if any(_prefixes(p, words) for p in patterns for words in commands):
            return f"a prefix_rule in {path}"
    return None
