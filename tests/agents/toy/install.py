"""``intent-ls hooks install toy``: hooks and the MCP server in ``.toy/hooks.json``."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents.install import (
    TIMEOUT_S,
    install_hooks,
    program,
    save_json,
    servers_of,
    set_server,
)
from tests.agents.toy.profile import PROFILE


def install(root: Path, uninstall: bool = False) -> list[str]:
    changes: list[str] = []
    path = root / PROFILE.hooks_file
    settings, touched = install_hooks(
        path, PROFILE.name, TIMEOUT_S, dict(PROFILE.events), uninstall
    )
    servers = servers_of(settings, "mcpServers", path)
    set_server(servers, {"command": program(), "args": ["mcp"]}, uninstall)
    if not servers:
        settings.pop("mcpServers")
    save_json(path, settings, changes, f"hooks {', '.join(touched)}")
    return changes
