"""``intent-ls shell classify [--workspace DIR] [--format text|json] -- COMMAND`` and
``intent-ls shell barrier [--workspace DIR] [--cwd-out FILE] -- COMMAND``."""

from __future__ import annotations

import argparse
import os

from intent_ls.cli.common import add_format_arg, add_workspace_arg, print_json, workspace_root


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "shell",
        help="what a shell command would do to the workspace",
        description="Shell-command analysis with the tree-sitter-bash grammar.",
    )
    verbs = parser.add_subparsers(
        dest="shell_verb", metavar="VERB", required=True, help="what to do (classify, barrier)"
    )
    classify = verbs.add_parser(
        "classify",
        help="classify a command: safe, write, unknown or destructive",
        description="Print the command's class, the workspace files it writes, and why.",
    )
    add_workspace_arg(classify)
    add_format_arg(classify)
    classify.add_argument(
        "command",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND",
        help="the shell command, after -- (one quoted argument, or its words)",
    )
    classify.set_defaults(func=run_classify)
    barrier = verbs.add_parser(
        "barrier",
        help="run a command in bash in the agents' sandbox",
        description="Run COMMAND with bash -c in the agents' sandbox (bubblewrap): it and "
        "everything it starts may write only the workspace, a private /tmp and the "
        "development caches; intent-ls's protected paths are read-only (the agent hooks "
        "run an agent's shell commands this way where the agent lets them rewrite one). "
        "Exits with the command's status; 2 when the sandbox cannot be planned (the "
        "command does not run). Without bubblewrap, or inside an agent's own sandbox, the "
        "command runs unconfined and says so.",
    )
    add_workspace_arg(barrier)
    barrier.add_argument(
        "--cwd-out",
        metavar="FILE",
        help="write the command's last working directory to FILE (for the agent's shell)",
    )
    barrier.add_argument(
        "command",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND",
        help="the shell command, after -- (one quoted argument)",
    )
    barrier.set_defaults(func=run_barrier)


def run_classify(args: argparse.Namespace) -> int:
    from intent_ls.agents.shell.classify import classify_command
    from intent_ls.cli.errors import CliError

    words = list(args.command)
    if words and words[0] == "--":
        words = words[1:]
    if not words:
        raise CliError("shell classify needs a command after --")
    command = words[0] if len(words) == 1 else " ".join(words)
    root = workspace_root(args)
    cwd = os.getcwd()
    inside = cwd == str(root) or cwd.startswith(str(root) + os.sep)
    found = classify_command(command, root, cwd if inside else None)
    if args.format == "json":
        print_json(found.to_json())
        return 0
    print(found.klass)
    for path in found.writes:
        print(f"writes: {path}")
    for reason in found.reasons:
        print(f"reason: {reason}")
    return 0


def run_barrier(args: argparse.Namespace) -> int:
    from intent_ls.agents.barrier import run
    from intent_ls.cli.errors import CliError

    words = list(args.command)
    if words and words[0] == "--":
        words = words[1:]
    if len(words) != 1:
        raise CliError("shell barrier needs the command as one argument after --")
    return run(workspace_root(args), words[0], args.cwd_out)
