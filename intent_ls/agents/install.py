"""``intent-ls hooks install``: merge intent-ls into an agent's project settings.

Idempotent and conservative: the user's own hooks, servers and settings are kept; an
entry is ours when its command runs ``intent-ls hook`` / ``intent-ls mcp``, and only
such entries are added, updated or (``--uninstall``) removed. Each change is reported.

This module holds what every agent's install shares (reading and writing settings
files, merging hook entries, the MCP server entry); which files an agent's install
writes is its own (``agents/<name>/install.py``, its profile's ``install``), and is
listed in docs/agents.md.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intent_ls.agents import MCP_SERVER

if TYPE_CHECKING:
    from intent_ls.agents.profile import AgentProfile

#: Seconds every agent gives a hook; the hook refuses on its own before (8 s budget).
TIMEOUT_S = 10
_OURS = re.compile(r"intent-ls\S*\s+hook\s")


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


def sandbox_program() -> str:
    """``intent-ls-sandbox`` when the agent will find it on PATH, else its path beside
    this ``intent-ls`` (a console script of the same installation)."""
    if shutil.which("intent-ls-sandbox"):
        return "intent-ls-sandbox"
    for folder in (Path(sys.argv[0]).parent, Path(sys.executable).parent):
        candidate = folder / "intent-ls-sandbox"
        if candidate.exists():
            return str(candidate.resolve())
    return "intent-ls-sandbox"


def set_shell_prefix(
    settings: dict[str, Any], path: Path, profile: AgentProfile, uninstall: bool
) -> bool:
    """The agent's shell-prefix variable in the settings' ``env``, naming the sandbox's
    prefix (removed on uninstall); whether it changed. A prefix of the user's own is
    not overwritten: intent-ls cannot run commands through two."""
    var = profile.shell_prefix_var
    if var is None:
        return False
    env = settings.setdefault("env", {})
    if not isinstance(env, dict):
        raise InstallError(f"{path}: 'env' is not an object; fix it first")
    current = env.get(var)
    ours = isinstance(current, str) and "intent-ls-sandbox" in current
    if current is not None and not ours:
        raise InstallError(
            f"{path}: env.{var} is set to {current!r}; intent-ls runs every shell command "
            "through its own sandbox prefix there. Remove it and install again"
        )
    wanted = None if uninstall else sandbox_program()
    if wanted is None:
        env.pop(var, None)
    else:
        env[var] = wanted
    if not env:
        settings.pop("env")
    return current != wanted


def installed_inside(root: Path) -> Path | None:
    """Where this intent-ls (its package, its environment or its ``intent-ls`` script)
    lives inside the workspace ``root``, else None. There the agent can write it — a
    project's ``.venv`` takes ``pip install`` and a ``.pth`` file in its site-packages
    runs first in every hook — so no agent may be pointed at it."""
    import intent_ls

    script = shutil.which("intent-ls") or sys.argv[0]
    top = os.path.realpath(root)
    for place in (Path(intent_ls.__file__).parent, Path(sys.prefix), Path(script)):
        real = os.path.realpath(place)
        if real == top or real.startswith(top + os.sep):
            return place
    return None


def is_ours(entry: Any) -> bool:
    """An entry whose command runs ``intent-ls hook …`` (whatever path to intent-ls)."""
    hooks = entry.get("hooks") if isinstance(entry, dict) else None
    for hook in hooks if isinstance(hooks, list) else ():
        command = hook.get("command") if isinstance(hook, dict) else None
        if isinstance(command, str) and _OURS.search(command):
            return True
    return False


def load_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix it first") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; fix it first")
    return data


def save_json(path: Path, data: dict[str, Any], changes: list[str], what: str) -> None:
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


def _entry(
    command: str, timeout: int, matcher: str | None, fields: dict[str, Any]
) -> dict[str, Any]:
    hook = {"type": "command", "command": command, "timeout": timeout, **fields}
    entry: dict[str, Any] = {"hooks": [hook]}
    if matcher is not None:
        entry = {"matcher": matcher, **entry}
    return entry


def wanted(
    command: str,
    timeout: int,
    events: dict[str, str | None],
    fields: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Our one entry per hook event (event name -> tool matcher, None for all); ``fields``
    go on each hook (the profile's ``hook_fields``)."""
    return {
        event: [_entry(command, timeout, matcher, dict(fields or {}))]
        for event, matcher in events.items()
    }


def _hooks_of(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: 'hooks' is not an object; fix it first")
    return hooks


def servers_of(settings: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    servers = settings.setdefault(key, {})
    if not isinstance(servers, dict):
        raise InstallError(f"{path}: '{key}' is not an object; fix it first")
    return servers


def apply_hooks(
    settings: dict[str, Any], path: Path, wanted: dict[str, list[Any]], uninstall: bool
) -> list[str]:
    """Merges ``wanted`` into the settings' hooks; an emptied ``hooks`` key is removed."""
    touched = _merge_hooks(_hooks_of(settings, path), wanted, uninstall)
    if not settings["hooks"]:
        settings.pop("hooks")
    return touched


def set_server(servers: dict[str, Any], entry: dict[str, Any], uninstall: bool) -> bool:
    if uninstall:
        return servers.pop(MCP_SERVER, None) is not None
    if servers.get(MCP_SERVER) == entry:
        return False
    servers[MCP_SERVER] = entry
    return True


def install_hooks(
    root: Path, profile: AgentProfile, uninstall: bool, timeout: int = TIMEOUT_S
) -> tuple[Path, dict[str, Any], list[str]]:
    """The agent's hooks file, its settings with our hook entries merged (or removed),
    and the events touched; the caller saves them."""
    path = root / profile.hooks_file
    settings = load_json(path)
    command = f"{program()} hook {profile.name}"
    wanted_hooks = wanted(command, timeout, dict(profile.events), dict(profile.hook_fields))
    return path, settings, apply_hooks(settings, path, wanted_hooks, uninstall)


def install_hooks_file(root: Path, profile: AgentProfile, uninstall: bool) -> list[str]:
    """The hooks file alone merged and saved; the changes made."""
    changes: list[str] = []
    path, settings, touched = install_hooks(root, profile, uninstall)
    save_json(path, settings, changes, f"hooks {', '.join(touched)}")
    return changes


def set_server_in(
    settings: dict[str, Any], key: str, path: Path, entry: dict[str, Any], uninstall: bool
) -> bool:
    """Our MCP server entry under ``key`` of settings that hold other things too (the
    key goes when nothing is left under it); whether it changed."""
    servers = servers_of(settings, key, path)
    changed = set_server(servers, entry, uninstall)
    if not servers:
        settings.pop(key)
    return changed


def install_with_server(
    root: Path,
    profile: AgentProfile,
    uninstall: bool,
    server: dict[str, Any],
    timeout: int = TIMEOUT_S,
    fresh: dict[str, Any] | None = None,
) -> list[str]:
    """Hooks and our MCP server entry (``server`` beside the command) under
    ``mcpServers`` of one settings file, saved once; the changes made. A file this
    creates starts with ``fresh`` (an agent's format version, so that the agent does not
    rewrite the file when it starts)."""
    changes: list[str] = []
    created = not (root / profile.hooks_file).exists()
    path, settings, touched = install_hooks(root, profile, uninstall, timeout)
    if created and fresh and not uninstall:
        settings = {**fresh, **settings}
    entry = {"command": program(), "args": ["mcp"], **server}
    server_changed = set_server_in(settings, "mcpServers", path, entry, uninstall)
    what = [f"hooks {', '.join(touched)}"] if touched else []
    if server_changed:
        what.append(f"MCP server {MCP_SERVER}")
    save_json(path, settings, changes, "; ".join(what) or "normalized")
    return changes
