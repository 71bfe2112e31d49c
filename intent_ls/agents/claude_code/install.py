"""``intent-ls hooks install claude-code``: hooks in ``.claude/settings.json``, the MCP
server in ``.mcp.json``."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.claude_code.profile import PROFILE
from intent_ls.agents.install import (
    TIMEOUT_S,
    install_hooks,
    load_json,
    program,
    save_json,
    servers_of,
    set_server,
)


def install(root: Path, uninstall: bool = False) -> list[str]:
    changes: list[str] = []
    path = root / PROFILE.hooks_file
    settings, touched = install_hooks(
        path, PROFILE.name, TIMEOUT_S, dict(PROFILE.events), uninstall
    )
    save_json(path, settings, changes, f"hooks {', '.join(touched)}")
    mcp_path = root / ".mcp.json"
    mcp = load_json(mcp_path)
    servers = servers_of(mcp, "mcpServers", mcp_path)
    if set_server(servers, {"command": program(), "args": ["mcp"]}, uninstall):
        save_json(mcp_path, mcp, changes, f"MCP server {MCP_SERVER}")
    return changes
