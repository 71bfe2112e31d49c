"""``intent-ls validate``: positioned problems of the intent spec, exit 1 on errors."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from intent_ls.cli.common import (
    add_format_arg,
    add_workspace_arg,
    display_path,
    print_json,
    problem_line,
    workspace_root,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check .orchestration/active_intents.yaml",
        description="Validate the intent spec. Prints 'path:line:col: severity: code: message' "
        "per problem (or JSON, or GitHub Actions annotations); exits 1 when there is an "
        "error, 0 otherwise.",
    )
    add_workspace_arg(parser)
    add_format_arg(parser, "text", "json", "github")
    parser.add_argument(
        "--file",
        metavar="PATH",
        type=Path,
        help="validate this file instead of the workspace's .orchestration/active_intents.yaml",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.check.annotations import github_annotation
    from intent_ls.scope.conflicts import with_scope_conflicts
    from intent_ls.spec.load import load_spec_file
    from intent_ls.workspace.discover import Workspace

    if args.file is not None:
        path = args.file
        result = with_scope_conflicts(load_spec_file(path))
    else:
        ws = Workspace(workspace_root(args))
        path = ws.spec_path
        result = ws.spec_result()
    shown = display_path(path)
    problems = sorted(result.problems, key=lambda p: (p.span.start, p.code))
    if args.format == "json":
        print_json(
            {
                "path": shown,
                "valid": not result.has_errors,
                "intents": len(result.spec.intents) if result.spec else 0,
                "problems": [p.to_dict() for p in problems],
            }
        )
        return 1 if result.has_errors else 0
    for p in problems:
        if args.format == "github":
            start, end = p.span.start, p.span.end
            print(
                github_annotation(
                    p.severity.value,
                    Path(shown).as_posix(),
                    start.line + 1,
                    p.message,
                    title=f"intent-ls {p.code}",
                    col=start.column + 1,
                    end_line=end.line + 1,
                    end_col=end.column + 1 if end.line == start.line else None,
                )
            )
        else:
            print(problem_line(shown, p))
    errors = sum(p.severity.value == "error" for p in problems)
    count = len(result.spec.intents) if result.spec else 0
    print(
        f"{shown}: {count} intent(s), {errors} error(s), {len(problems) - errors} other problem(s)",
        file=sys.stderr,
    )
    return 1 if result.has_errors else 0
