"""Agent front doors: hook adapters per agent CLI, the gate they share, per-session state.

Each agent is a folder here (its adapter, install, rule files, doctor checks and
:class:`~intent_ls.agents.profile.AgentProfile`), listed by :mod:`.registry`. The hook's
time budget and the MCP server's names are defined here, where the CLI's fast hook path
and every adapter can read them without loading the gate.
"""

#: Seconds a hook may take before it answers (failing closed) on its own.
DEFAULT_BUDGET = 8.0
#: The MCP server ``hooks install`` registers, as every agent's settings name it.
MCP_SERVER = "intent-ls"
#: Its tool that selects the session's intent.
SELECT_TOOL = "select_active_intent"
