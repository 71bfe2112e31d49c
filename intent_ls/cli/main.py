"""Builds the argument parser from the verb modules and dispatches."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from intent_ls import __version__

#: Verb modules, in the order ``--help`` lists them. Adding a verb = adding its module here.
VERB_MODULES = (
    "intent_ls.cli.validate",
    "intent_ls.cli.intents",
    "intent_ls.cli.context",
    "intent_ls.cli.which",
    "intent_ls.cli.serve",
    "intent_ls.cli.demo",
    "intent_ls.cli.trace",
    "intent_ls.cli.map",
    "intent_ls.cli.check",
    "intent_ls.cli.hook",
    "intent_ls.cli.shell",
    "intent_ls.cli.mcp",
    "intent_ls.cli.hooks",
    "intent_ls.cli.record",
)
#: Verbs run on every agent tool call: dispatched before the full parser is built.
FAST_VERBS = {"hook": "intent_ls.cli.hook"}


class CliError(Exception):
    """A user-facing failure: printed as one line on stderr, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="intent-ls",
        description="Intent-driven governance of AI-assisted coding.",
    )
    parser.add_argument("--version", action="version", version=f"intent-ls {__version__}")
    subparsers = parser.add_subparsers(dest="verb", metavar="COMMAND")
    for name in VERB_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words and words[0] in FAST_VERBS:
        return int(importlib.import_module(FAST_VERBS[words[0]]).fast_main(words[1:]))
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"intent-ls: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
