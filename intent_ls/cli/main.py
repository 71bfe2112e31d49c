"""Builds the argument parser from the verb modules and dispatches."""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from intent_ls import __version__
from intent_ls.cli.errors import CliError

if TYPE_CHECKING:
    import argparse

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
    "intent_ls.cli.init",
    "intent_ls.cli.merge_driver",
    "intent_ls.cli.hook",
    "intent_ls.cli.shell",
    "intent_ls.cli.mcp",
    "intent_ls.cli.hooks",
    "intent_ls.cli.record",
    "intent_ls.cli.schema",
    "intent_ls.cli.editors",
)
#: Verbs run on every agent tool call: dispatched before the full parser is built.
FAST_VERBS = {"hook": "intent_ls.cli.hook"}


#: Exit statuses every verb shares (README, "CLI"): 0 fine, 1 the verb's own negative
#: answer (spec errors, findings, a bad ledger line), 2 usage or environment error.
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    """Imports argparse and the verbs' shared helpers only here: the fast verbs (the
    agent hook, on every tool call) never pay for them."""
    import argparse

    from intent_ls.cli.common import add_workspace_arg

    parser = argparse.ArgumentParser(
        prog="intent-ls",
        description="Intent-driven governance of AI-assisted coding.",
        epilog="Exit status: 0 fine; 1 the command's own negative answer (spec errors, "
        "findings, a bad ledger line); 2 usage or environment error. Errors are one line "
        "on stderr.",
    )
    parser.add_argument("--version", action="version", version=f"intent-ls {__version__}")
    add_workspace_arg(parser, top_level=True)
    subparsers = parser.add_subparsers(
        dest="verb", metavar="COMMAND", help="what to do (`intent-ls COMMAND --help` for more)"
    )
    for name in VERB_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def run_fast_process(words: Sequence[str]) -> NoReturn:
    """A fast verb that is the whole process (an agent hook: one per tool call) skips
    the cyclic garbage collector and the interpreter's teardown, which frees every module
    and object: together about a quarter of a hook's time. Its files are closed and its
    answer written by the time it returns; only the standard streams need flushing."""
    gc.disable()
    status = int(importlib.import_module(FAST_VERBS[words[0]]).fast_main(words[1:]))
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if stream is not None:
            # A closed pipe (the agent gave up on the hook) leaves nothing to tell.
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
    os._exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words and words[0] in FAST_VERBS:
        if argv is None:
            return run_fast_process(words)
        return int(importlib.import_module(FAST_VERBS[words[0]]).fast_main(words[1:]))
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    from intent_ls.cli.common import fill_workspace

    try:
        fill_workspace(args)
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"intent-ls: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # A file the verb needs is missing, unreadable or a directory: name it, no traceback.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"intent-ls: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
