"""Kilo Code CLI's side of ``intent-ls doctor``: its plugin and MCP server
(:mod:`intent_ls.agents.js_plugin.doctor`), and the switches that load no project
plugin."""

from __future__ import annotations

from intent_ls.agents.js_plugin.doctor import facts
from intent_ls.agents.kilo.profile import CONFIG, PROFILE

FACTS = facts(
    PROFILE,
    CONFIG,
    ("KILO_PURE", "KILO_DISABLE_PROJECT_CONFIG"),
    (
        (
            "plugins",
            "`kilo --pure` loads no plugin other than its own: a session started so runs "
            "without intent-ls.",
        ),
    ),
)
