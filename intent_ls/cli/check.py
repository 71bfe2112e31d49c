"""``intent-ls check``: every change since a base revision must answer to the ledger."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from intent_ls.cli.common import add_format_arg, add_workspace_arg, print_json, workspace_root


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="CI gate: every changed line must be covered by the trace ledger",
        description=(
            "Check that every change between a base revision and the working tree is "
            "covered by a trace record of an IN_PROGRESS intent that owns the file, with no "
            "unapproved verdict, and that the ledger verifies. Exit status: 0 clean, "
            "1 findings, 2 usage or environment error."
        ),
    )
    add_workspace_arg(parser)
    parser.add_argument(
        "--base",
        metavar="REV",
        help="revision to compare the working tree with (default: merge-base of HEAD and "
        "origin/main or origin/master if present, else HEAD)",
    )
    add_format_arg(parser, "text", "json", "sarif", "github")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.check.engine import run_check
    from intent_ls.check.git import GitError
    from intent_ls.check.report import render_github, render_text, summary, to_json, to_sarif
    from intent_ls.cli.errors import CliError
    from intent_ls.workspace.setup import warn_clone_setup

    try:
        result = run_check(workspace_root(args), args.base)
    except GitError as exc:
        raise CliError(str(exc)) from exc
    except (OSError, json.JSONDecodeError) as exc:
        raise CliError(f"check failed: {exc}") from exc
    if args.format == "json":
        print_json(to_json(result))
    elif args.format == "sarif":
        print_json(to_sarif(result))
    elif args.format == "github":
        sys.stdout.write(render_github(result))
    else:
        sys.stdout.write(render_text(result))
    print(summary(result), file=sys.stderr)
    warn_clone_setup(workspace_root(args))
    return 0 if result.ok else 1
