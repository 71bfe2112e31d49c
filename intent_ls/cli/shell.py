"""``intent-ls shell classify [--workspace DIR] [--format text|json] -- COMMAND``."""

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
        dest="shell_verb", metavar="VERB", required=True, help="what to do (classify)"
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


def run_classify(args: argparse.Namespace) -> int:
    from intent_ls.agents.shell.classify import classify_command
    from intent_ls.cli.main import CliError

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
