"""``intent-ls hooks install codex``: hooks in ``.codex/hooks.json``; ``[features] hooks =
true`` and ``[mcp_servers.intent-ls]`` in ``.codex/config.toml``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.codex.profile import CONFIG, PROFILE
from intent_ls.agents.install import InstallError, install_hooks_file, program

_TOML_BEGIN = "# >>> intent-ls (managed by `intent-ls hooks install`)"
_TOML_END = "# <<< intent-ls"


def install(root: Path, uninstall: bool = False) -> list[str]:
    changes = install_hooks_file(root, PROFILE, uninstall)
    _config(root / CONFIG, program(), uninstall, changes)
    return changes


def _without_block(lines: list[str]) -> list[str]:
    """The file's lines without our marked block."""
    if _TOML_BEGIN not in lines:
        return lines
    start = lines.index(_TOML_BEGIN)
    end = lines.index(_TOML_END, start) if _TOML_END in lines[start:] else len(lines) - 1
    return lines[:start] + lines[end + 1 :]


def _features(lines: list[str], theirs: dict[str, Any], path: Path) -> list[str]:
    """Turns Codex's hooks on: a line in the user's own ``[features]`` table (Codex
    refuses a table defined twice), else a ``[features]`` table in our block; returns
    the block's lines (``lines`` gets the inserted one)."""
    features = theirs.get("features")
    if isinstance(features, dict) and "hooks" in features:
        return []
    if not isinstance(features, dict):
        return ["[features]", "hooks = true"]
    at = next((i for i, line in enumerate(lines) if line.strip() == "[features]"), -1)
    if at < 0:
        raise InstallError(
            f"{path}: add `hooks = true` to its [features] table (intent-ls could "
            "not find the table header to add it)"
        )
    lines.insert(at + 1, "hooks = true  # added by intent-ls hooks install")
    return []


def _server(theirs: dict[str, Any], exe: str) -> list[str]:
    servers = theirs.get("mcp_servers")
    if isinstance(servers, dict) and MCP_SERVER in servers:
        return []
    return [f'[mcp_servers."{MCP_SERVER}"]', f"command = {json.dumps(exe)}", 'args = ["mcp"]']


def _config(path: Path, exe: str, uninstall: bool, changes: list[str]) -> None:
    """Our settings live in one marked block, so that re-installing replaces it and
    uninstalling removes it without a TOML writer touching the user's lines."""
    import tomllib

    old = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = _without_block(old.splitlines())
    try:
        theirs = tomllib.loads("\n".join(lines).rstrip("\n"))
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); fix it first") from None
    block = [] if uninstall else _features(lines, theirs, path) + _server(theirs, exe)
    text = "\n".join(lines).rstrip("\n")
    new = text + ("\n\n" if text else "")
    if block:
        new += "\n".join([_TOML_BEGIN, *block, _TOML_END]) + "\n"
    new = new.rstrip("\n") + "\n" if new.strip() else ""
    if new == old or (not new and not path.exists()):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new, encoding="utf-8")
    what = "removed intent-ls settings" if uninstall else "hooks feature and MCP server"
    changes.append(f"updated {path}: {what}")
