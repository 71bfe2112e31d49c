"""Codex CLI's own exec-policy rules (Starlark ``prefix_rule`` files), asked whether
rewriting a command to run under the write barrier would change what Codex decides about
it (:mod:`intent_ls.agents.agent_rules`).

Codex 0.169.0 matches its rules on the command the hook returned (its rejection quotes
the rewritten script). It allows a script only when every command of it is allowed, and
the barrier's ``exec`` is not: a command its user allowed would run inside its sandbox
instead of outside. So a command whose every command an ``allow`` rule allows is left
as written.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from intent_ls.agents.agent_rules import files, plain_commands, read


def _folders(root: Path) -> list[Path]:
    home = os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
    return [Path("/etc/codex/rules"), Path(home) / "rules", root / ".codex" / "rules"]


def _allows(text: str) -> list[list[frozenset[str]]] | None:
    """The pattern of every ``prefix_rule`` deciding ``allow`` (Starlark reads as
    Python here; its default decision is ``allow``), or None when unreadable (Codex
    refuses to start on such a file)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "prefix_rule"):
            continue
        given = {k.arg: k.value for k in node.keywords}
        try:
            words = ast.literal_eval(given.get("pattern") or node.args[0])
            decision = ast.literal_eval(given.get("decision") or ast.Constant("allow"))
        except (ValueError, TypeError, IndexError, RecursionError, MemoryError):
            return None
        if not isinstance(words, list) or not words:
            return None
        if decision == "allow":
            found.append([frozenset([w] if isinstance(w, str) else map(str, w)) for w in words])
    return found


def _prefixes(pattern: list[frozenset[str]], words: list[str]) -> bool:
    if len(words) < len(pattern):
        return False
    first = {words[0], os.path.basename(words[0])}
    rest = zip(words[1:], pattern[1:], strict=False)
    return bool(first & pattern[0]) and all(w in p for w, p in rest)


def rule_for(command: str, root: Path) -> str | None:
    """The rules file whose ``allow`` rules allow every command of ``command`` (which
    rewriting it would defeat), or None."""
    commands = plain_commands(command)
    if commands is None:
        return None
    words = [shlex.split(c) for c in commands]
    allows: list[list[frozenset[str]]] = []
    first = None
    for path in files(_folders(root), ".rules"):
        text = read(path) or ""
        found = (_allows(text) if "prefix_rule" in text else None) or []
        allows += found
        first = first or (path if found else None)
    if allows and all(any(_prefixes(p, w) for p in allows) for w in words):
        return f"allow rules for every command of it ({first})"
    return None


def own_rule(command: str, arguments: dict[str, Any], root: Path) -> str | None:
    """The profile's ``own_rule``: Codex's rules read the command alone."""
    return rule_for(command, root)


def rule_files(root: Path) -> list[Path]:
    """The profile's ``rule_files``: every rules file of every folder Codex reads."""
    return list(files(_folders(root), ".rules"))
