"""Claude Code: its hook adapter, install, permission rules, doctor checks and profile."""
