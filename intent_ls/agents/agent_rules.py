"""Gemini CLI's and Codex's own rules for shell commands, asked whether rewriting a
command to run under the write barrier (:mod:`intent_ls.agents.barrier`) would change
what they decide about it.

Both agents run the before-tool hook first and match their rules after, on the command
the hook returned (Gemini CLI 0.61.0 ``_processToolCall``; Codex 0.169.0, whose
rejection quotes the rewritten script). The rewritten form is a script: the barrier's
``exec``, ``exit 126``, then the command verbatim. Both judge a script command by
command, so a rule on one command of it still matches the verbatim copy (a ``deny``
or ``forbidden`` stays one, checked in each CLI). Two kinds of rule are lost:

- an **allow**: both allow a script only when every command of it is allowed, and the
  barrier's ``exec`` is not. Gemini then asks (denies without a human), and a
  ``tools.allowed`` narrowed to ``run_shell_command(…)`` denies every rewritten
  command; Codex runs it inside its sandbox instead of outside, as its user allowed.
- a Gemini **deny** or **ask** on the whole command text (a ``commandRegex`` across a
  pipe: no single command matches it, and the rewritten text does not start as the
  command does): a denied pipeline ran.

So a command is left as written when every command of it is allowed by a rule, or
(Gemini) a deny or ask rule matches it whole: the agent judges it as its user meant,
and what it changes is verified after it ran. Only a plain script (commands joined by
``&&``, ``||``, ``;``, ``|``, quoted words, no expansion or redirection) can be wholly
allowed; anything else stays behind the barrier, so an agent cannot slip a command past
it by joining it to an allowed one.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

MAX_FILE = 1024 * 1024
GEMINI_SHELL = ("run_shell_command", "ShellTool")
GEMINI_SYSTEM = Path("/etc/gemini-cli")
_OPERATORS = ("&&", "||", ";", "|")
#: What takes a script out of the plain form both agents read command by command.
_NOT_PLAIN = frozenset("\n\r$`<>(){}\\#")
_NARROWED = re.compile(rf"^(?:{'|'.join(GEMINI_SHELL)})\((.*)\)$", re.DOTALL)


def plain_commands(script: str) -> list[str] | None:
    """The commands of a plain script, as written (quotes kept), or None."""
    parts, start, quote, at = [], 0, "", 0
    while at < len(script):
        char = script[at]
        if quote == '"' and char in "$`\\":
            return None  # expanded inside double quotes: ``"$(…)"`` runs a command
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in _NOT_PLAIN:
            return None
        elif char in ";&|":
            operator = script[at : at + 2] if script[at : at + 2] in _OPERATORS else char
            if operator not in _OPERATORS:
                return None  # a lone ``&``: a background job
            parts.append(script[start:at])
            at += len(operator)
            start = at
            continue
        at += 1
    if quote:
        return None
    parts.append(script[start:])
    commands = [p.strip() for p in parts]
    return commands if all(commands) else None


def _read(path: Path) -> str | None:
    from intent_ls.common.safe_io import read_regular

    try:
        return read_regular(path, MAX_FILE, follow=True).decode("utf-8")
    except (OSError, ValueError):
        return None


def _files(folders: list[Path], suffix: str) -> Iterator[Path]:
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        yield from (folder / name for name in names if name.endswith(suffix))


# --- Gemini CLI: policy files (TOML) and settings ---------------------------------


def _gemini_home() -> Path:
    return Path(os.environ.get("GEMINI_CLI_HOME") or os.path.expanduser("~")) / ".gemini"


def _gemini_settings(root: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    system = os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or GEMINI_SYSTEM / "settings.json"
    for path in (
        GEMINI_SYSTEM / "system-defaults.json",
        Path(system),
        _gemini_home() / "settings.json",
        root / ".gemini" / "settings.json",
    ):
        text = _read(path)
        try:
            settings = json.loads(text) if text else None
        except (ValueError, RecursionError):
            continue
        if isinstance(settings, dict):
            yield path, settings


def _gemini_rules(root: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every rule of the admin's and the user's policy files (``policyPaths`` in the
    settings replace the user's folder; the workspace's folder is off in 0.61.0,
    ``disableWorkspacePolicies``). A file that does not parse is skipped, as Gemini
    skips it."""
    chosen = [
        Path(os.path.expanduser(p))
        for _, settings in _gemini_settings(root)
        for p in _names(settings.get("policyPaths"))
    ]
    places = [GEMINI_SYSTEM / "policies", *(chosen or [_gemini_home() / "policies"])]
    files = [p for p in places if p.suffix == ".toml"]
    for path in [*files, *_files([p for p in places if p.suffix != ".toml"], ".toml")]:
        text = _read(path) or ""
        if not any(key in text for key in ("commandPrefix", "commandRegex", "argsPattern")):
            continue  # no rule of it reads the command (and tomllib costs ~4 ms to import)
        import tomllib

        try:
            rules = tomllib.loads(text).get("rule", [])
        except (tomllib.TOMLDecodeError, RecursionError):
            continue
        if isinstance(rules, list):
            yield from ((path, rule) for rule in rules if isinstance(rule, dict))


def _gemini_narrowed(root: Path) -> Iterator[tuple[Path, str]]:
    """``tools.allowed`` / ``tools.core`` entries naming shell commands: an allow for
    those, and a deny for every other shell command."""
    for path, settings in _gemini_settings(root):
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


def _gemini_patterns(rule: dict[str, Any]) -> list[str] | None:
    """The argument patterns of a rule about shell commands; None for a rule that does
    not read the command (it judges the rewritten command as the written one)."""
    tools = _names(rule.get("toolName"))
    if tools and not any(t in GEMINI_SHELL or "*" in t for t in tools):
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


def gemini_rule_for(command: str, arguments: dict[str, Any], root: Path) -> str | None:
    """The rule (named) that rewriting ``command`` would defeat, or None."""
    whole = _stringified({**arguments, "command": command})
    commands = plain_commands(command)
    each = [_stringified({**arguments, "command": c}) for c in commands or ()]
    allowed: list[tuple[Path, str]] = []
    for path, rule in _gemini_rules(root):
        patterns = _gemini_patterns(rule) or []
        if rule.get("decision") in ("deny", "ask_user"):
            if any(_search(p, whole) for p in patterns):
                return f"a {rule['decision']} rule on the whole command in {path}"
        elif rule.get("decision") == "allow":
            allowed += [(path, p) for p in patterns]
    for path, entry in _gemini_narrowed(root):
        allowed += [(path, p) for p in _prefix_patterns([entry])]
    if each and allowed and all(any(_search(p, c) for _, p in allowed) for c in each):
        return f"allow rules for every command of it ({allowed[0][0]})"
    return None


# --- Codex: exec-policy rules (Starlark prefix_rule) ------------------------------


def _codex_folders(root: Path) -> list[Path]:
    home = os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
    return [Path("/etc/codex/rules"), Path(home) / "rules", root / ".codex" / "rules"]


def _codex_allows(text: str) -> list[list[frozenset[str]]] | None:
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


def codex_rule_for(command: str, root: Path) -> str | None:
    """The rules file whose ``allow`` rules allow every command of ``command`` (which
    rewriting it would defeat), or None."""
    commands = plain_commands(command)
    if commands is None:
        return None
    words = [shlex.split(c) for c in commands]
    allows: list[list[frozenset[str]]] = []
    first = None
    for path in _files(_codex_folders(root), ".rules"):
        text = _read(path) or ""
        found = (_codex_allows(text) if "prefix_rule" in text else None) or []
        allows += found
        first = first or (path if found else None)
    if allows and all(any(_prefixes(p, w) for p in allows) for w in words):
        return f"allow rules for every command of it ({first})"
    return None
