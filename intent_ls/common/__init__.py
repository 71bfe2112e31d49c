"""Plumbing every layer may use: hashing, line diffs, the one door to the disk, URIs,
per-user local state. Imports nothing else from intent_ls."""
