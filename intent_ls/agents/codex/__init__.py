"""Codex CLI: its hook adapter (apply_patch included), install, exec-policy rules, doctor
checks and profile."""
