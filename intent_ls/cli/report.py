"""``intent-ls report``: one self-contained HTML page of intents and who changed what."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from intent_ls.cli.common import add_workspace_arg, display_path, workspace_root


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write an HTML report of intents, records and contributors",
        description=(
            "Write one self-contained HTML file (no script, nothing fetched): every intent "
            "with its status, scope, acceptance criteria, records, files and AST nodes "
            "touched, changed lines by contributor type and model, a timeline, verdicts "
            "and approvals, lessons, and the intent map as a diagram. From a workspace's "
            "ledger, or with --from from the Parquet exports of many repositories."
        ),
    )
    add_workspace_arg(parser)
    parser.add_argument(
        "--out",
        metavar="FILE",
        type=Path,
        help="where to write the page (default: .orchestration/.local/report.html in the "
        "workspace; required with --from)",
    )
    parser.add_argument(
        "--from",
        dest="export_dir",
        metavar="EXPORT_DIR",
        type=Path,
        help="read `intent-ls export` Parquet files (repo=NAME/ directories) instead of "
        "the workspace's ledger",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError
    from intent_ls.report.build import DEFAULT_RELPATH, collect, write_report
    from intent_ls.report.export_source import ExportError

    if args.export_dir is not None:
        if args.out is None:
            raise CliError("--from needs --out FILE: an export directory has no workspace")
        try:
            repos = collect(None, args.export_dir)
        except ExportError as exc:
            raise CliError(str(exc)) from exc
        out = args.out
    else:
        root = workspace_root(args)
        repos = collect(root, None)
        out = args.out if args.out is not None else root / DEFAULT_RELPATH
    path = write_report(repos, out)
    print(f"report: {display_path(path)}")
    return 0
