"""``intent-ls hooks install claude-code``: hooks and the sandbox's shell prefix
(``env.CLAUDE_CODE_SHELL_PREFIX``) in ``.claude/settings.json``, the MCP server in
``.mcp.json``."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.claude_code.doctor import MCP_FILE
from intent_ls.agents.claude_code.profile import PROFILE
from intent_ls.agents.install import (
    install_hooks,
    load_json,
    program,
    save_json,
    servers_of,
    set_server,
    set_shell_prefix,
)


def install(root: Path, uninstall: bool = False) -> list[str]:
    changes: list[str] = []
    path, settings, touched = install_hooks(root, PROFILE, uninstall)
    if set_shell_prefix(settings, path, PROFILE, uninstall):
        touched.append(f"env.{PROFILE.shell_prefix_var}")
    save_json(path, settings, changes, f"hooks {', '.join(touched)}")
    path = root / MCP_FILE
    mcp = load_json(path)
    if set_server(
        servers_of(mcp, "mcpServers", path), {"command": program(), "args": ["mcp"]}, uninstall
    ):
        save_json(path, mcp, changes, f"MCP server {MCP_SERVER}")
    return changes
