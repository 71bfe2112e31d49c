"""intent-ls: every code mutation answers to a declared intent.

The package root stays import-light: the CLI and agent hooks import it on every
invocation, so nothing here may pull in pygls, lsprotocol or tree-sitter.
"""

__version__ = "0.1.0"
