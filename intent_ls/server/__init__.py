"""The language server front door (pygls). Thin: parse params, call the core, render.

Only this package imports pygls and lsprotocol; see docs/server.md for the features.
"""
