"""``intent-ls hooks install gemini``: hooks and the MCP server (trusted, so that Gemini
CLI does not ask before each of its tools) in ``.gemini/settings.json``."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.gemini.profile import PROFILE
from intent_ls.agents.install import (
    TIMEOUT_S,
    install_hooks,
    program,
    save_json,
    servers_of,
    set_server,
)


def install(root: Path, uninstall: bool = False) -> list[str]:
    changes: list[str] = []
    path = root / PROFILE.hooks_file
    # Gemini counts milliseconds.
    settings, touched = install_hooks(
        path, PROFILE.name, TIMEOUT_S * 1000, dict(PROFILE.events), uninstall
    )
    servers = servers_of(settings, "mcpServers", path)
    server_changed = set_server(
        servers, {"command": program(), "args": ["mcp"], "trust": True}, uninstall
    )
    if not servers:
        settings.pop("mcpServers")
    what = [f"hooks {', '.join(touched)}"] if touched else []
    if server_changed:
        what.append(f"MCP server {MCP_SERVER}")
    save_json(path, settings, changes, "; ".join(what) or "normalized")
    return changes
