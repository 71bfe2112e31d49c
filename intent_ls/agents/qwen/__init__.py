"""Qwen Code: its hook adapter, install, doctor checks and profile."""
