"""``intent-ls hooks install opencode``: the intent-ls plugin in ``.opencode/plugins/``
and the MCP server in ``opencode.json`` (:mod:`intent_ls.agents.js_plugin.install`)."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents.js_plugin.install import install as install_plugin
from intent_ls.agents.opencode.profile import CONFIG, PROFILE, SCHEMA


def install(root: Path, uninstall: bool = False) -> list[str]:
    return install_plugin(root, PROFILE, CONFIG, SCHEMA, uninstall)
