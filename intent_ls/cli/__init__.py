"""Command-line front door. Every verb lives in its own module under this package.

Verb modules expose ``register(subparsers)`` and must keep their top-level imports
cheap (no pygls, lsprotocol or tree-sitter): argparse builds every sub-parser on each
run, so a heavy import in one verb would slow down all of them.
"""
