"""Gemini CLI's own policy rules for shell commands, asked whether any of them speaks to
a command as the model wrote it.

Gemini CLI 0.61.0 runs the BeforeTool hook first and its policy engine after, on the
command the hook returned (``_processToolCall`` in its bundle): a command rewritten to
run under the write barrier (:mod:`intent_ls.agents.barrier`) is judged as a script of
three parts — the barrier's ``exec``, ``exit 126``, and the command verbatim. Rules that
match one part of the command still match its verbatim copy, but rules on the whole
command do not: a ``deny`` whose ``commandRegex`` spans a pipe let the command run, an
``allow`` (``commandPrefix``) no longer allows it (a prompt, or a denial without a
human), and a ``tools.allowed`` narrowed to ``run_shell_command(…)`` denies every
rewritten command. So where a rule could speak to the command as written, the hook
leaves it unwrapped: Gemini judges it as the user meant, and what it changes is
verified after it ran.

Read as Gemini reads them: policy files of the admin (``/etc/gemini-cli/policies``),
the user (``$GEMINI_CLI_HOME/.gemini/policies``, default ``~``) and the workspace
(``.gemini/policies``, which 0.61.0 ignores), and ``tools.allowed`` / ``tools.core`` in
the system, user and workspace settings. Matching leans towards "could match": an
unreadable rule, a regular expression Python cannot compile, or any part of the command
a rule prefixes counts, since a false match only costs the barrier for one command.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SHELL_TOOLS = ("run_shell_command", "ShellTool")
SYSTEM = Path("/etc/gemini-cli")
MAX_FILE = 1024 * 1024
#: Splits a script into the commands Gemini's parser judges one by one (a superset).
_PARTS = re.compile(r"&&|\|\||\$\(|[;&|\n()`{}]")
#: Gemini's ``stripShellWrapper``: ``bash -c '…'`` is judged as what it runs.
_SHELL_WRAPPER = re.compile(r"^\s*(?:(?:\S+/)?(?:sh|bash|zsh))\s+-c\s+", re.IGNORECASE)
_NARROWED = re.compile(rf"^(?:{'|'.join(SHELL_TOOLS)})\((.*)\)$", re.DOTALL)


def _home() -> Path:
    return Path(os.environ.get("GEMINI_CLI_HOME") or os.path.expanduser("~")) / ".gemini"


def _read(path: Path) -> str | None:
    from intent_ls.common.safe_io import read_regular

    try:
        return read_regular(path, MAX_FILE, follow=True).decode("utf-8")
    except (OSError, ValueError):
        return None


def _policy_files(root: Path) -> Iterator[Path]:
    for folder in (SYSTEM / "policies", _home() / "policies", root / ".gemini" / "policies"):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        yield from (folder / name for name in names if name.endswith(".toml"))


def _settings_files(root: Path) -> list[Path]:
    system = os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or str(SYSTEM / "settings.json")
    return [
        SYSTEM / "system-defaults.json",
        Path(system),
        _home() / "settings.json",
        root / ".gemini" / "settings.json",
    ]


def _names(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _patterns(rule: dict[str, Any]) -> list[str] | None:
    """The argument patterns of a rule about shell commands, as Gemini builds them
    (``buildArgsPatterns``); None for a rule that does not look at the command."""
    tools = _names(rule.get("toolName"))
    prefix, regex = rule.get("commandPrefix"), rule.get("commandRegex")
    args = rule.get("argsPattern")
    if prefix is None and regex is None and args is None:
        return None
    if tools and not any(t in SHELL_TOOLS or "*" in t for t in tools):
        return None
    if prefix is not None:
        return [
            re.escape('"command":' + json.dumps(p)[:-1]) + r'(?:[\s"]|\\")' for p in _names(prefix)
        ] or ["(?:)"]  # an unreadable prefix could be anything
    if regex is not None:
        return [f'"command":"{regex}' if isinstance(regex, str) else "(?:)"]
    return [args if isinstance(args, str) else "(?:)"]


def _stringified(args: dict[str, Any]) -> str:
    """Gemini's ``stableStringify`` of a tool's arguments: sorted keys, each top-level
    pair between NUL characters (what its ``argsPattern`` rules are matched against)."""

    def text(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)

    pairs = (f"\0{text(k)}:{text(v)}\0" for k, v in sorted(args.items()) if v is not None)
    return "{" + ",".join(pairs) + "}"


def _texts(command: str) -> list[str]:
    texts = [command.strip()]
    texts += [part.strip() for part in _PARTS.split(command) if part.strip()]
    texts += [_SHELL_WRAPPER.sub("", t, count=1).strip("'\" ") for t in texts]
    return list(dict.fromkeys(texts))


def _matches(pattern: str, subjects: list[str]) -> bool:
    try:
        compiled = re.compile(pattern)
    except re.error:
        return True
    return any(compiled.search(s) for s in subjects)


def rule_for(command: str, arguments: dict[str, Any], root: Path) -> str | None:
    """The user's rule that could speak to ``command`` as written (named for the
    record), or None when no rule looks at the command text."""
    for path in _settings_files(root):
        text = _read(path)
        try:
            tools = json.loads(text).get("tools") if text else None
        except (ValueError, AttributeError):
            continue
        for key in ("allowed", "core"):
            listed = tools.get(key) if isinstance(tools, dict) else None
            for entry in _names(listed):
                if _NARROWED.match(entry.strip()):  # allows these, denies every other one
                    return f"tools.{key} {entry} ({path})"
    subjects = [_stringified({**arguments, "command": t}) for t in _texts(command)]
    for path in _policy_files(root):
        text = _read(path)
        rules = _toml_rules(text) if text is not None else None
        if rules is None:
            return f"an unreadable policy file ({path})"
        for rule in rules:
            patterns = _patterns(rule)
            if patterns and any(_matches(p, subjects) for p in patterns):
                return f"{rule.get('decision', 'a')} rule in {path}"
    return None


def _toml_rules(text: str) -> list[dict[str, Any]] | None:
    import tomllib

    try:
        rules = tomllib.loads(text).get("rule", [])
    except tomllib.TOMLDecodeError:
        return None
    return [r for r in rules if isinstance(r, dict)] if isinstance(rules, list) else None
