"""OpenCode's side of ``intent-ls doctor``: its plugin and MCP server
(:mod:`intent_ls.agents.js_plugin.doctor`), and the switches that load no project
plugin."""

from __future__ import annotations

from intent_ls.agents.js_plugin.doctor import facts
from intent_ls.agents.opencode.profile import CONFIG, PROFILE

FACTS = facts(
    PROFILE,
    CONFIG,
    ("OPENCODE_PURE", "OPENCODE_DISABLE_PROJECT_CONFIG"),
    (
        (
            "plugins",
            "`opencode --pure` loads no plugin other than its own: a session started "
            "so runs without intent-ls.",
        ),
    ),
)
