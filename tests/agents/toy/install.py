"""``intent-ls hooks install toy``: hooks and the MCP server in ``.toy/hooks.json``."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents.install import install_hooks, program, save_json, set_server_in
from tests.agents.toy.profile import PROFILE


def install(root: Path, uninstall: bool = False) -> list[str]:
    changes: list[str] = []
    path, settings, touched = install_hooks(root, PROFILE, uninstall)
    set_server_in(settings, "mcpServers", path, {"command": program(), "args": ["mcp"]}, uninstall)
    save_json(path, settings, changes, f"hooks {', '.join(touched)}")
    return changes
