"""``intent-ls hooks install``: merge intent-ls into an agent's project settings.

Idempotent and conservative: the user's own hooks, servers and settings are kept; an
entry is ours when its command runs ``intent-ls hook`` / ``intent-ls mcp``, and only
such entries are added, updated or (``--uninstall``) removed. Each change is reported.

===============  ===========================================================
agent            files
===============  ===========================================================
claude-code      ``.claude/settings.json`` (hooks) + ``.mcp.json`` (server)
codex            ``.codex/hooks.json`` (hooks) + ``.codex/config.toml``
                 (``[features] hooks = true``, ``[mcp_servers.intent-ls]``)
gemini           ``.gemini/settings.json`` (hooks + ``mcpServers`` with trust)
===============  ===========================================================
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from intent_ls.agents import MCP_SERVER

#: Seconds every agent gives a hook; the hook refuses on its own before (8 s budget).
TIMEOUT_S = 10
#: Before a tool: the writes, the shell, and our own MCP tools (answered ``allow``).
#: After a tool: the writes and the shell (recorded) and reads (what the session saw).
#: Every other tool call costs no hook process.
CLAUDE_BEFORE = "Write|Edit|NotebookEdit|Bash|mcp__intent-ls__.*"
CLAUDE_AFTER = "Write|Edit|NotebookEdit|Bash|Read"
GEMINI_BEFORE = "write_file|replace|run_shell_command|mcp_intent-ls_.*"
GEMINI_AFTER = "write_file|replace|run_shell_command|read_file"
_OURS = re.compile(r"intent-ls\S*\s+hook\s")
#: The hook events each agent's entries are installed on (event -> tool matcher, None
#: for every tool): what ``intent-ls doctor`` expects to find.
CLAUDE_EVENTS: dict[str, str | None] = {
    "SessionStart": None,
    "UserPromptSubmit": None,
    "PreToolUse": CLAUDE_BEFORE,
    "PostToolUse": CLAUDE_AFTER,
}
CODEX_EVENTS: dict[str, str | None] = dict.fromkeys(
    ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse")
)
GEMINI_EVENTS: dict[str, str | None] = {
    "SessionStart": None,
    "BeforeAgent": None,
    "BeforeModel": None,
    "BeforeTool": GEMINI_BEFORE,
    "AfterTool": GEMINI_AFTER,
}
_TOML_BEGIN = "# >>> intent-ls (managed by `intent-ls hooks install`)"
_TOML_END = "# <<< intent-ls"


class InstallError(Exception):
    pass


def program() -> str:
    """``intent-ls`` when the agent will find it on PATH, else this executable's path."""
    found = shutil.which("intent-ls")
    if found:
        return "intent-ls"
    script = Path(sys.argv[0])
    if script.name == "intent-ls" and script.exists():
        return str(script.resolve())
    return "intent-ls"


def is_ours(entry: Any) -> bool:
    """An entry whose command runs ``intent-ls hook …`` (whatever path to intent-ls)."""
    hooks = entry.get("hooks") if isinstance(entry, dict) else None
    for hook in hooks if isinstance(hooks, list) else ():
        command = hook.get("command") if isinstance(hook, dict) else None
        if isinstance(command, str) and _OURS.search(command):
            return True
    return False


def _load_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix it first") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; fix it first")
    return data


def _save_json(path: Path, data: dict[str, Any], changes: list[str], what: str) -> None:
    old = path.read_text(encoding="utf-8") if path.exists() else None
    new = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if old == new:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(new, encoding="utf-8")
    os.replace(tmp, path)
    changes.append(f"{'updated' if old is not None else 'created'} {path}: {what}")


def _merge_hooks(
    hooks: dict[str, Any], wanted: dict[str, list[dict[str, Any]]], uninstall: bool
) -> list[str]:
    """Replaces our entries per event, keeps everyone else's; returns touched events."""
    touched = []
    for event in sorted(set(hooks) | set(wanted)):
        current = hooks.get(event)
        entries = current if isinstance(current, list) else []
        theirs = [e for e in entries if not is_ours(e)]
        mine = [] if uninstall else wanted.get(event, [])
        merged = theirs + mine
        if merged != entries:
            touched.append(event)
        if merged:
            hooks[event] = merged
        else:
            hooks.pop(event, None)
    return touched


def _entry(command: str, timeout: int, matcher: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"hooks": [{"type": "command", "command": command, "timeout": timeout}]}
    if matcher is not None:
        entry = {"matcher": matcher, **entry}
    return entry


def _wanted(command: str, timeout: int, events: dict[str, str | None]) -> dict[str, Any]:
    """Our one entry per hook event (event name -> tool matcher, None for all)."""
    return {event: [_entry(command, timeout, matcher)] for event, matcher in events.items()}


def _hooks_of(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: 'hooks' is not an object; fix it first")
    return hooks


def _servers_of(settings: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    servers = settings.setdefault(key, {})
    if not isinstance(servers, dict):
        raise InstallError(f"{path}: '{key}' is not an object; fix it first")
    return servers


def _apply_hooks(
    settings: dict[str, Any], path: Path, wanted: dict[str, list[Any]], uninstall: bool
) -> list[str]:
    """Merges ``wanted`` into the settings' hooks; an emptied ``hooks`` key is removed."""
    touched = _merge_hooks(_hooks_of(settings, path), wanted, uninstall)
    if not settings["hooks"]:
        settings.pop("hooks")
    return touched


def _set_server(servers: dict[str, Any], entry: dict[str, Any], uninstall: bool) -> bool:
    if uninstall:
        return servers.pop(MCP_SERVER, None) is not None
    if servers.get(MCP_SERVER) == entry:
        return False
    servers[MCP_SERVER] = entry
    return True


def install_claude(root: Path, uninstall: bool = False) -> list[str]:
    exe = program()
    changes: list[str] = []
    path = root / ".claude" / "settings.json"
    settings = _load_json(path)
    hook = f"{exe} hook claude-code"
    wanted = _wanted(hook, TIMEOUT_S, CLAUDE_EVENTS)
    touched = _apply_hooks(settings, path, wanted, uninstall)
    _save_json(path, settings, changes, f"hooks {', '.join(touched)}")
    mcp_path = root / ".mcp.json"
    mcp = _load_json(mcp_path)
    servers = _servers_of(mcp, "mcpServers", mcp_path)
    if _set_server(servers, {"command": exe, "args": ["mcp"]}, uninstall):
        _save_json(mcp_path, mcp, changes, f"MCP server {MCP_SERVER}")
    return changes


def install_gemini(root: Path, uninstall: bool = False) -> list[str]:
    exe = program()
    changes: list[str] = []
    path = root / ".gemini" / "settings.json"
    settings = _load_json(path)
    hook = f"{exe} hook gemini"
    wanted = _wanted(hook, TIMEOUT_S * 1000, GEMINI_EVENTS)  # Gemini counts milliseconds
    touched = _apply_hooks(settings, path, wanted, uninstall)
    servers = _servers_of(settings, "mcpServers", path)
    server_changed = _set_server(
        servers, {"command": exe, "args": ["mcp"], "trust": True}, uninstall
    )
    if not servers:
        settings.pop("mcpServers")
    what = [f"hooks {', '.join(touched)}"] if touched else []
    if server_changed:
        what.append(f"MCP server {MCP_SERVER}")
    _save_json(path, settings, changes, "; ".join(what) or "normalized")
    return changes


def install_codex(root: Path, uninstall: bool = False) -> list[str]:
    exe = program()
    changes: list[str] = []
    path = root / ".codex" / "hooks.json"
    settings = _load_json(path)
    hook = f"{exe} hook codex"
    wanted = _wanted(hook, TIMEOUT_S, CODEX_EVENTS)
    touched = _apply_hooks(settings, path, wanted, uninstall)
    _save_json(path, settings, changes, f"hooks {', '.join(touched)}")
    _codex_config(root / ".codex" / "config.toml", exe, uninstall, changes)
    return changes


def _codex_config(path: Path, exe: str, uninstall: bool, changes: list[str]) -> None:
    """Our settings live in one marked block, so that re-installing replaces it and
    uninstalling removes it without a TOML writer touching the user's lines."""
    import tomllib

    old = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = old.splitlines()
    if _TOML_BEGIN in lines:
        start = lines.index(_TOML_BEGIN)
        end = lines.index(_TOML_END, start) if _TOML_END in lines[start:] else len(lines) - 1
        lines = lines[:start] + lines[end + 1 :]
    text = "\n".join(lines).rstrip("\n")
    try:
        theirs = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); fix it first") from None
    block = []
    if not uninstall:
        features = theirs.get("features")
        if not (isinstance(features, dict) and "hooks" in features):
            if isinstance(features, dict):
                at = next((i for i, line in enumerate(lines) if line.strip() == "[features]"), -1)
                if at < 0:
                    raise InstallError(
                        f"{path}: add `hooks = true` to its [features] table (intent-ls could "
                        "not find the table header to add it)"
                    )
                lines.insert(at + 1, "hooks = true  # added by intent-ls hooks install")
                text = "\n".join(lines).rstrip("\n")
            else:
                block += ["[features]", "hooks = true"]
        servers = theirs.get("mcp_servers")
        if not (isinstance(servers, dict) and MCP_SERVER in servers):
            block += [f'[mcp_servers."{MCP_SERVER}"]', f"command = {json.dumps(exe)}"]
            block += ['args = ["mcp"]']
    new = text + ("\n\n" if text else "")
    if block:
        new += "\n".join([_TOML_BEGIN, *block, _TOML_END]) + "\n"
    new = new.rstrip("\n") + "\n" if new.strip() else ""
    if new == old:
        return
    if not new and not path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new, encoding="utf-8")
    what = "removed intent-ls settings" if uninstall else "hooks feature and MCP server"
    changes.append(f"updated {path}: {what}")


INSTALLERS = {"claude-code": install_claude, "codex": install_codex, "gemini": install_gemini}
