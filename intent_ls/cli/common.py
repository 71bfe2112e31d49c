"""Helpers shared by the verb modules: the ``--workspace`` flag and output formats."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def add_workspace_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workspace",
        "-w",
        metavar="DIR",
        type=Path,
        default=Path.cwd(),
        help="workspace root holding .orchestration/ (default: the current directory)",
    )


def add_format_arg(parser: argparse.ArgumentParser, *choices: str) -> None:
    choices = choices or ("text", "json")
    parser.add_argument(
        "--format",
        choices=choices,
        default=choices[0],
        help=f"output format ({', '.join(choices)})",
    )


def workspace_root(args: argparse.Namespace) -> Path:
    from intent_ls.cli.main import CliError

    root: Path = args.workspace
    if not root.is_dir():
        raise CliError(f"workspace {str(root)!r} is not a directory")
    return root.resolve()


def print_json(value: Any) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
