"""Helpers shared by the verb modules: the ``--workspace`` flag and output formats."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from intent_ls.spec.model import Problem
    from intent_ls.workspace.discover import Workspace

WORKSPACE_HELP = (
    "workspace root holding .orchestration/ (default: the nearest directory at or above "
    "the current one, up to the repository root, with .orchestration/active_intents.yaml; "
    "else the current directory)"
)

#: Where a verb looked for the spec, said whenever it found none.
NO_SPEC_HINT = (
    "(without --workspace DIR, intent-ls looks in the current directory and its parents, "
    "up to the repository root)"
)


def add_workspace_arg(parser: argparse.ArgumentParser, *, top_level: bool = False) -> None:
    """``--workspace`` is accepted before the verb (``intent-ls -w DIR validate``) and after
    it. The verb's copy defaults to SUPPRESS so that, when it is not given, argparse keeps
    the value parsed before the verb instead of overwriting it with a default."""
    parser.add_argument(
        "--workspace",
        "-w",
        metavar="DIR",
        type=Path,
        default=None if top_level else argparse.SUPPRESS,
        help=WORKSPACE_HELP,
    )


def add_format_arg(parser: argparse.ArgumentParser, *choices: str) -> None:
    choices = choices or ("text", "json")
    parser.add_argument(
        "--format",
        choices=choices,
        default=choices[0],
        help=f"output format ({', '.join(choices)}; default: {choices[0]})",
    )


def fill_workspace(args: argparse.Namespace) -> None:
    """Records whether ``--workspace`` was given and, when it was not, puts the
    workspace found upwards from the current directory in its place (the way git finds
    its repository), so every verb reads ``args.workspace`` the same way."""
    from intent_ls.workspace.locate import discover_workspace

    args.workspace_given = args.workspace is not None
    if args.workspace is None:
        args.workspace = discover_workspace(Path.cwd()) or Path.cwd()


def workspace_root(args: argparse.Namespace) -> Path:
    from intent_ls.cli.errors import CliError

    root: Path = args.workspace
    if not root.is_dir():
        missing = "" if root.exists() else " (it does not exist)"
        raise CliError(f"workspace {str(root)!r} is not a directory{missing}")
    return root.resolve()


def typed_path(typed: str, root: Path) -> Path:
    """The absolute path a user means by a path on the command line: relative to the
    current directory when that is inside the workspace (as with git or ruff), else —
    ``--workspace`` pointing elsewhere — relative to the workspace root."""
    cwd = Path.cwd().resolve()
    base = cwd if cwd == root or root in cwd.parents else root
    return Path(os.path.normpath(base / typed))


def workspace_relative(typed: str, root: Path) -> str:
    """A command-line path (see :func:`typed_path`) in the workspace-relative POSIX form
    the ledger and the spec use; a path outside the workspace is returned as typed, so
    it simply matches nothing."""
    absolute = typed_path(typed, root)
    for candidate in (absolute, Path(os.path.realpath(absolute))):
        try:
            return candidate.relative_to(root).as_posix()
        except ValueError:
            continue
    return typed


def print_json(value: Any) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def problem_line(shown: str, problem: Problem) -> str:
    """``path:line:col: severity: code: message``, the one shape every text output uses
    (editors and CI logs turn it into a link)."""
    start = problem.span.start
    return (
        f"{shown}:{start.line + 1}:{start.column + 1}: {problem.severity.value}: "
        f"{problem.code}: {problem.message}"
    )


def display_path(path: Path) -> str:
    """``path`` relative to the current directory when it lies below it, else as is."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def report_spec_problems(ws: Workspace) -> int:
    """Prints the spec's errors on stderr and returns how many there are. Verbs other
    than ``validate`` answer from what is left of a broken spec (an intent with an unknown
    status is dropped), so the user must learn that the answer may be incomplete."""
    from intent_ls.spec.load import SPEC_NOT_FOUND
    from intent_ls.spec.model import Severity

    errors = [p for p in ws.spec_result().problems if p.severity is Severity.ERROR]
    if any(p.code == SPEC_NOT_FOUND for p in errors):
        print(f"intent-ls: error: {errors[0].message} {NO_SPEC_HINT}", file=sys.stderr)
        return len(errors)
    shown = display_path(ws.spec_path)
    for problem in errors:
        print(problem_line(shown, problem), file=sys.stderr)
    if errors:
        print(
            f"intent-ls: warning: the intent spec has {len(errors)} error(s); intents they "
            "affect are left out of this answer (`intent-ls validate` lists every problem)",
            file=sys.stderr,
        )
    return len(errors)


def check_ledger_file(root: Path) -> Path:
    """The ledger's path, refused up front when something other than a regular file sits
    there (a directory, a socket): every reader would otherwise fail mid-way."""
    from intent_ls.cli.errors import CliError
    from intent_ls.ledger.store import ledger_path

    path = ledger_path(root)
    if path.parent.exists() and not path.parent.is_dir():
        raise CliError(f"{path.parent} is not a directory; intent-ls keeps its files in it")
    if path.exists() and not path.is_file():
        raise CliError(f"{path} is not a regular file; the trace ledger must be a JSONL file")
    return path
