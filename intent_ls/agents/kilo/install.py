"""``intent-ls hooks install kilo``: the intent-ls plugin in ``.kilo/plugins/``
and the MCP server in ``kilo.json`` (:mod:`intent_ls.agents.js_plugin.install`)."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents.js_plugin.install import install as install_plugin
from intent_ls.agents.kilo.profile import CONFIG, PROFILE, SCHEMA


def install(root: Path, uninstall: bool = False) -> list[str]:
    return install_plugin(root, PROFILE, CONFIG, SCHEMA, uninstall)
