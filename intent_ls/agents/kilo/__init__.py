"""Kilo Code CLI: its profile, the shipped plugin's payloads, install and doctor checks."""
