"""Claude Code's own permission rules for Bash, matched on the command the model wrote.

Claude Code matches its rules against the input a PreToolUse hook returns, so a command
rewritten to run under the write barrier (:mod:`intent_ls.agents.gate.shell_barrier`)
matches none of them: an allow rule for ``npm test`` would ask again, and a deny rule
for ``rm -rf`` would only ask (or let it through, were the hook to allow). So the hook
reads the user's rules from the settings files Claude Code reads — managed, user
(``$CLAUDE_CONFIG_DIR`` or ``~/.claude``), project and local — and answers for the
command as written, in Claude Code's order (deny, then ask, then allow):

- **deny** when any part of the command could match a deny rule (split on every shell
  operator, quotes ignored: a false match refuses, it never lets through);
- **ask** likewise for ask rules;
- **allow** only for a plain command — no operator, substitution or redirection — that
  a rule allows exactly as Claude Code reads it (exact, ``prefix:*``, or ``*``
  wildcards): anything less certain is left to Claude Code, which asks.

The project's settings are agent-protected files (put back after every call, read-only
under the barrier), so an agent cannot widen its own rules. Rules given only on Claude
Code's command line (``--allowedTools``, ``--disallowedTools``) are not visible to a
hook: they do not match a rewritten command (write them in a settings file instead).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

#: Where Claude Code reads managed (administrator) settings on Linux.
MANAGED = Path("/etc/claude-code/managed-settings.json")
MAX_SETTINGS = 1024 * 1024
_OPERATORS = re.compile(r"&&|\|\||[;&|\n]")
#: What makes a command more than one plain command: operators, substitutions,
#: redirections, line continuations and comments.
_NOT_PLAIN = re.compile(r"[;&|\n`<>]|\$\(|\\\n|(^|\s)#")


def settings_files(project: Path) -> list[Path]:
    config = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    return [
        MANAGED,
        Path(config) / "settings.json",
        project / ".claude" / "settings.json",
        project / ".claude" / "settings.local.json",
    ]


def bash_rules(files: Iterable[Path]) -> dict[str, list[str]]:
    """{"allow"|"ask"|"deny": [the specifier of each ``Bash(…)`` rule, "*" for ``Bash``]}."""
    from intent_ls.common.safe_io import read_regular

    found: dict[str, list[str]] = {"allow": [], "ask": [], "deny": []}
    for n, path in enumerate(files):
        try:  # as Claude Code reads them: a symlinked settings file counts
            data = json.loads(read_regular(path, MAX_SETTINGS, follow=True))
        except (OSError, ValueError):
            continue
        permissions = data.get("permissions") if isinstance(data, dict) else None
        if not isinstance(permissions, dict):
            continue
        if n == 0 and permissions.get("allowManagedPermissionRulesOnly") is True:
            found = {"allow": [], "ask": [], "deny": []}
            _add(found, permissions)
            return found
        _add(found, permissions)
    return found


def _add(found: dict[str, list[str]], permissions: dict[str, object]) -> None:
    for kind in found:
        rules = permissions.get(kind)
        for rule in rules if isinstance(rules, list) else ():
            if not isinstance(rule, str):
                continue
            rule = rule.strip()
            if rule == "Bash":
                found[kind].append("*")
            elif rule.startswith("Bash(") and rule.endswith(")"):
                found[kind].append(rule[len("Bash(") : -1])


def decide(command: str, rules: dict[str, list[str]]) -> tuple[str, str] | None:
    """(``deny``/``ask``/``allow``, the rule) for ``command``, or None: Claude Code asks."""
    parts = [p.strip() for p in _OPERATORS.split(command) if p.strip()] or [command.strip()]
    for kind in ("deny", "ask"):
        for rule in rules[kind]:
            if any(_matches(rule, part, lenient=True) for part in parts):
                return kind, f"Bash({rule})" if rule != "*" else "Bash"
    plain = command.strip()
    if _NOT_PLAIN.search(plain):
        return None
    for rule in rules["allow"]:
        if _matches(rule, plain, lenient=False):
            return "allow", f"Bash({rule})" if rule != "*" else "Bash"
    return None


def _matches(rule: str, command: str, *, lenient: bool) -> bool:
    """Whether a ``Bash(rule)`` specifier matches one command. ``lenient`` (for deny and
    ask) also takes ``prefix:*`` and a trailing ``*`` without a word boundary."""
    if rule == "*":
        return True
    if rule.endswith(":*"):
        prefix = rule[:-2]
        if lenient:
            return command.startswith(prefix)
        return command == prefix or command.startswith(prefix + " ")
    if "*" not in rule.replace("\\*", ""):
        return command == rule.replace("\\*", "*")
    pattern = "".join(
        ".*" if piece == "*" else re.escape(piece.replace("\\*", "*"))
        for piece in re.split(r"(?<!\\)(\*)", rule)
    )
    if lenient and rule.endswith(" *"):  # ``Bash(rm *)`` also refuses a bare ``rm``
        pattern = f"(?:{pattern}|{re.escape(rule[:-2])})"
    return re.fullmatch(pattern, command, re.DOTALL) is not None


def user_rules(project: Path, command: str) -> tuple[str, str] | None:
    """The profile's ``user_rules``: the user's Bash rules in the settings Claude Code
    reads for ``project``, decided for ``command`` as written."""
    return decide(command, bash_rules(settings_files(project)))
