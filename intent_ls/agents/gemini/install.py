"""``intent-ls hooks install gemini``: hooks and the MCP server (trusted, so that Gemini
CLI does not ask before each of its tools) in ``.gemini/settings.json``."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents.gemini.profile import PROFILE
from intent_ls.agents.install import TIMEOUT_S, install_with_server


def install(root: Path, uninstall: bool = False) -> list[str]:
    # Gemini counts milliseconds.
    return install_with_server(root, PROFILE, uninstall, {"trust": True}, TIMEOUT_S * 1000)
