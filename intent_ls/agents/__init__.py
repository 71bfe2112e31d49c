"""Agent front doors: hook adapters per agent CLI, the gate they share, per-session state."""
