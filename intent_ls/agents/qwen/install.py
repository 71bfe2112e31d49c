"""``intent-ls hooks install qwen``: hooks and the MCP server in ``.qwen/settings.json``
(``mcpServers``, trusted, so that Qwen Code does not ask before each of its tools)."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents.install import install_with_server
from intent_ls.agents.qwen.profile import PROFILE

#: The settings format these entries are written in (Qwen Code 0.24.4's
#: ``SETTINGS_VERSION``). Qwen stamps a file without one when it starts, which would be
#: a change of the workspace nobody recorded; a file it already stamped is left so.
FORMAT = {"$version": 4}


def install(root: Path, uninstall: bool = False) -> list[str]:
    return install_with_server(root, PROFILE, uninstall, {"trust": True}, fresh=FORMAT)
