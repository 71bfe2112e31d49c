"""Gemini CLI: its hook adapter, install, policy rules, doctor checks and profile."""
