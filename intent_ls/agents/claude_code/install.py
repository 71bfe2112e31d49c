"""``intent-ls hooks install claude-code``: hooks in ``.claude/settings.json``, the MCP
server in ``.mcp.json``."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.claude_code.doctor import MCP_FILE
from intent_ls.agents.claude_code.profile import PROFILE
from intent_ls.agents.install import (
    install_hooks_file,
    load_json,
    program,
    save_json,
    servers_of,
    set_server,
)


def install(root: Path, uninstall: bool = False) -> list[str]:
    changes = install_hooks_file(root, PROFILE, uninstall)
    path = root / MCP_FILE
    mcp = load_json(path)
    if set_server(
        servers_of(mcp, "mcpServers", path), {"command": program(), "args": ["mcp"]}, uninstall
    ):
        save_json(path, mcp, changes, f"MCP server {MCP_SERVER}")
    return changes
