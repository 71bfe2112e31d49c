"""``intent-ls doctor``: a set-up that proves itself, read-only.

Guard tools fail silently: a renamed binary, a misspelt settings key, an untrusted
folder, and the agent's hook never runs, which nobody notices until the damage is done.
Each module here checks one family (the spec, the ledger and this clone's merge driver,
each agent's hooks and MCP server, the editors configured in the workspace) and answers
with :class:`~intent_ls.doctor.report.Check` lines, each naming the next step. Nothing
here writes to the workspace: hook probes run against a throwaway mirror of it.
"""
