"""``intent-ls hook AGENT``: the agents' hook command (docs/agents.md), for every agent of
:mod:`intent_ls.agents.registry`.

It runs on every tool call of an agent, so it has a fast path in
:func:`intent_ls.cli.main.main` that skips building the other verbs' parsers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from intent_ls.agents import DEFAULT_BUDGET, registry

if TYPE_CHECKING:
    import argparse

#: The options :func:`quick_parse` reads, and where each goes.
_OPTIONS = {"--workspace": "workspace", "-w": "workspace", "--budget": "budget"}


WORKSPACE_HELP = (
    "workspace root (default: the nearest folder holding .orchestration/ at or above the "
    "agent's project directory, or the cwd in the hook's payload)"
)


def _add_arguments(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument("agent", choices=registry.names(), help="which agent's hook format")
    parser.add_argument(
        "--workspace", "-w", metavar="DIR", type=Path, default=default, help=WORKSPACE_HELP
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=DEFAULT_BUDGET,
        metavar="SECONDS",
        help="refuse on its own after this long (keep it below the agent's hook timeout)",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    import argparse

    labels = ", ".join(p.label for p in registry.profiles())
    parser = subparsers.add_parser(
        "hook",
        help="agent hook: read the agent's hook JSON on stdin, answer on stdout",
        description=f"Governs one agent hook event ({labels}): "
        "selection, scope, stale files, protected paths, shell commands, ledger records. "
        "Fails closed: any internal error refuses the action.",
    )
    _add_arguments(parser, argparse.SUPPRESS)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The workspace comes from the payload unless ``--workspace`` was given: an agent
    runs hooks from its own working directory, which is not always the project's."""
    from intent_ls.agents.hook import main

    given = getattr(args, "workspace_given", args.workspace is not None)
    return main(args.agent, args.workspace if given else None, args.budget)


def quick_parse(argv: Sequence[str]) -> tuple[str, Path | None, float] | None:
    """``AGENT [--workspace DIR] [--budget SECONDS]``, the forms ``hooks install`` writes,
    read without argparse (whose import and formatter cost ~4 ms on every tool call);
    None for anything else (help, abbreviations, a mistake), which argparse answers."""
    agent: str | None = None
    found: dict[str, str] = {}
    words = iter(argv)
    for word in words:
        name, equals, value = word.partition("=")
        if name in _OPTIONS:
            value = value if equals else next(words, "")
            if not value or value.startswith("-"):
                return None
            found[_OPTIONS[name]] = value
        elif word in registry.names() and agent is None:
            agent = word
        else:
            return None
    if agent is None:
        return None
    try:
        budget = float(found.get("budget", DEFAULT_BUDGET))
    except ValueError:
        return None
    workspace = found.get("workspace")
    return agent, None if workspace is None else Path(workspace), budget


def fast_main(argv: Sequence[str]) -> int:
    quick = quick_parse(argv)
    if quick is not None:
        from intent_ls.agents.hook import main

        return main(*quick)
    import argparse

    parser = argparse.ArgumentParser(prog="intent-ls hook")
    _add_arguments(parser, None)
    return run(parser.parse_args(list(argv)))
