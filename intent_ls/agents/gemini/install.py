"""``intent-ls hooks install gemini``: hooks and the MCP server (trusted, so that Gemini
CLI does not ask before each of its tools) in ``.gemini/settings.json``."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.gemini.profile import PROFILE
from intent_ls.agents.install import TIMEOUT_S, install_hooks, program, save_json, set_server_in


def install(root: Path, uninstall: bool = False) -> list[str]:
    changes: list[str] = []
    # Gemini counts milliseconds.
    path, settings, touched = install_hooks(root, PROFILE, uninstall, TIMEOUT_S * 1000)
    entry = {"command": program(), "args": ["mcp"], "trust": True}
    server_changed = set_server_in(settings, "mcpServers", path, entry, uninstall)
    what = [f"hooks {', '.join(touched)}"] if touched else []
    if server_changed:
        what.append(f"MCP server {MCP_SERVER}")
    save_json(path, settings, changes, "; ".join(what) or "normalized")
    return changes
