"""Agent front doors: hook adapters per agent CLI, the gate they share, per-session state.

The agent names and the hook's time budget are defined here, where the CLI's fast hook
path can read them without loading any adapter.
"""

#: The agents with a hook adapter, as ``intent-ls hook`` and ``hooks install`` name them.
AGENTS = ("claude-code", "codex", "gemini")
#: Seconds a hook may take before it answers (failing closed) on its own.
DEFAULT_BUDGET = 8.0
