"""Gemini CLI's own rules for shell commands (policy files in TOML, ``tools.allowed``
in its settings), asked whether rewriting a command to run under the write barrier would
change what Gemini decides about it (:mod:`intent_ls.agents.agent_rules`).

Gemini CLI 0.61.0 runs the before-tool hook first and matches its rules after, on the
command the hook returned (``_processToolCall``). Beside an **allow** (Gemini then asks,
which denies without a human, and a ``tools.allowed`` narrowed to
``run_shell_command(…)`` denies every rewritten command), a **deny** or **ask** on the
whole command text is lost too (a ``commandRegex`` across a pipe: no single command
matches it, and the rewritten text does not start as the command does): a denied
pipeline would run. Either way the command is left as written.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from intent_ls.agents.agent_rules import files, plain_commands, read

SHELL_TOOLS = ("run_shell_command", "ShellTool")
SYSTEM = Path("/etc/gemini-cli")
_NARROWED = re.compile(rf"^(?:{'|'.join(SHELL_TOOLS)})\((.*)\)$", re.DOTALL)


def _home() -> Path:
    return Path(os.environ.get("GEMINI_CLI_HOME") or os.path.expanduser("~")) / ".gemini"


def _settings_paths(root: Path) -> tuple[Path, ...]:
    system = os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or SYSTEM / "settings.json"
    return (
        SYSTEM / "system-defaults.json",
        Path(system),
        _home() / "settings.json",
        root / ".gemini" / "settings.json",
    )


def _settings(root: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in _settings_paths(root):
        text = read(path)
        try:
            settings = json.loads(text) if text else None
        except (ValueError, RecursionError):
            continue
        if isinstance(settings, dict):
            yield path, settings


def _policy_files(root: Path) -> list[Path]:
    """The admin's and the user's policy files (``policyPaths`` in the settings replace
    the user's folder; the workspace's folder is off in 0.61.0,
    ``disableWorkspacePolicies``)."""
    chosen = [
        Path(os.path.expanduser(p))
        for _, settings in _settings(root)
        for p in _names(settings.get("policyPaths"))
    ]
    places = [SYSTEM / "policies", *(chosen or [_home() / "policies"])]
    named = [p for p in places if p.suffix == ".toml"]
    return [*named, *files([p for p in places if p.suffix != ".toml"], ".toml")]


def _file_rules(text: str) -> list[dict[str, Any]]:
    """The rules of one policy file that read the command; none when it does not parse,
    as Gemini skips such a file."""
    if not any(key in text for key in ("commandPrefix", "commandRegex", "argsPattern")):
        return []  # no rule of it reads the command (and tomllib costs ~4 ms to import)
    import tomllib

    try:
        rules = tomllib.loads(text).get("rule", [])
    except (tomllib.TOMLDecodeError, RecursionError):
        return []
    return [rule for rule in rules if isinstance(rule, dict)] if isinstance(rules, list) else []


def _rules(root: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every rule of the policy files that reads the command."""
    for path in _policy_files(root):
        yield from ((path, rule) for rule in _file_rules(read(path) or ""))


def _narrowed(root: Path) -> Iterator[tuple[Path, str]]:
    """``tools.allowed`` / ``tools.core`` entries naming shell commands: an allow for
    those, and a deny for every other shell command."""
    for path, settings in _settings(root):
        tools = settings.get("tools")
        for key in ("allowed", "core"):
            listed = tools.get(key) if isinstance(tools, dict) else None
            for entry in _names(listed):
                found = _NARROWED.match(entry.strip())
                if found:
                    yield path, found.group(1)


def _names(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _prefix_patterns(prefixes: list[str]) -> list[str]:
    """Gemini's ``buildArgsPatterns`` for ``commandPrefix``."""
    return [re.escape('"command":' + json.dumps(p)[:-1]) + r'(?:[\s"]|\\")' for p in prefixes]


def _patterns(rule: dict[str, Any]) -> list[str] | None:
    """The argument patterns of a rule about shell commands; None for a rule that does
    not read the command (it judges the rewritten command as the written one)."""
    tools = _names(rule.get("toolName"))
    if tools and not any(t in SHELL_TOOLS or "*" in t for t in tools):
        return None
    prefix, regex = rule.get("commandPrefix"), rule.get("commandRegex")
    if prefix is not None:
        return _prefix_patterns(_names(prefix))
    if isinstance(regex, str):
        return [f'"command":"{regex}']
    pattern = rule.get("argsPattern")
    return [pattern] if isinstance(pattern, str) else None


def _stringified(args: dict[str, Any]) -> str:
    """Gemini's ``stableStringify`` of a tool's arguments: sorted keys, each top-level
    pair between NUL characters (what its patterns are matched against)."""

    def text(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)

    pairs = (f"\0{text(k)}:{text(v)}\0" for k, v in sorted(args.items()) if v is not None)
    return "{" + ",".join(pairs) + "}"


def _search(pattern: str, subject: str) -> bool:
    try:
        return re.search(pattern, subject) is not None
    except re.error:
        return False  # a pattern Python cannot read: the barrier stays


def _whole_rule(whole: str, root: Path) -> tuple[str | None, list[tuple[Path, str]]]:
    """A deny or ask rule matching the whole command (named), and the allow patterns."""
    allowed: list[tuple[Path, str]] = []
    for path, rule in _rules(root):
        patterns = _patterns(rule) or []
        decision = rule.get("decision")
        if decision in ("deny", "ask_user") and any(_search(p, whole) for p in patterns):
            return f"a {decision} rule on the whole command in {path}", allowed
        if decision == "allow":
            allowed += [(path, p) for p in patterns]
    return None, allowed


def rule_for(command: str, arguments: dict[str, Any], root: Path) -> str | None:
    """The rule (named) that rewriting ``command`` would defeat, or None."""
    whole = _stringified({**arguments, "command": command})
    commands = plain_commands(command)
    each = [_stringified({**arguments, "command": c}) for c in commands or ()]
    found, allowed = _whole_rule(whole, root)
    if found is not None:
        return found
    for path, entry in _narrowed(root):
        allowed += [(path, p) for p in _prefix_patterns([entry])]
    if each and allowed and all(any(_search(p, c) for _, p in allowed) for c in each):
        return f"allow rules for every command of it ({allowed[0][0]})"
    return None


def rule_files(root: Path) -> list[Path]:
    """The profile's ``rule_files``: the settings (their ``tools`` and ``policyPaths``)
    and the policy files they lead to."""
    return [*_settings_paths(root), *_policy_files(root)]
