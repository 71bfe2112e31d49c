"""Claude Code: its hook adapter, install, shell prefix, doctor checks and profile."""
