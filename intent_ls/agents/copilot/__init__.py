"""GitHub Copilot CLI: its hook adapter, install, doctor checks and profile."""
