"""``intent-ls hooks install copilot``: hooks in ``.github/hooks/intent-ls.json`` (a file
of intent-ls's own among the repository's hook files), the MCP server in
``.github/mcp.json``."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.copilot.profile import MCP_FILE, PROFILE
from intent_ls.agents.install import install_hooks, load_json, program, save_json, set_server_in


def install(root: Path, uninstall: bool = False) -> list[str]:
    changes: list[str] = []
    path, settings, touched = install_hooks(root, PROFILE, uninstall)
    if set(settings) <= {"version"} and uninstall:
        _remove(path, changes)
    else:
        save_json(path, {"version": 1, **settings}, changes, f"hooks {', '.join(touched)}")
    mcp_path = root / MCP_FILE
    mcp = load_json(mcp_path)
    entry = {"command": program(), "args": ["mcp"]}
    if set_server_in(mcp, "mcpServers", mcp_path, entry, uninstall):
        if mcp:
            save_json(mcp_path, mcp, changes, f"MCP server {MCP_SERVER}")
        else:
            _remove(mcp_path, changes)
    return changes


def _remove(path: Path, changes: list[str]) -> None:
    """A file of intent-ls's own left with nothing in it goes."""
    if path.exists():
        path.unlink()
        changes.append(f"removed {path}")
