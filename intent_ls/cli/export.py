"""``intent-ls export``: the ledger as Parquet (``--out``), and SQL over exports
(``--query``). The work is in :mod:`intent_ls.export`; this is the front door."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intent_ls.cli.common import add_workspace_arg, check_ledger_file, workspace_root

if TYPE_CHECKING:
    from intent_ls.export.source import TamperedLedger


def register(subparsers: Any) -> None:
    from intent_ls.export.query import NAMED_QUERIES

    named = "; ".join(f"{name}: {q.description}" for name, q in NAMED_QUERIES.items())
    parser = subparsers.add_parser(
        "export",
        help="export the verified ledger as Parquet, or query exports with SQL",
        description="With --out: write the ledger's records not exported yet as Parquet "
        "under DIR/records/repo=NAME/ and DIR/touches/repo=NAME/ (the ledger must verify; "
        "exit 1 otherwise, nothing written). With --otlp: send the records a collector has "
        "not acknowledged yet as OpenTelemetry log records (the ledger must verify; exit 1 "
        "otherwise, nothing sent). With --query: run DuckDB SQL, or a named "
        "query, over the views `records` and `touches` of the exports under each --from DIR.",
        epilog=f"Named queries: {named}.",
    )
    parser.add_argument("--out", metavar="DIR", type=Path, help="the export root to write to")
    parser.add_argument(
        "--otlp",
        metavar="URL",
        nargs="?",
        const="",
        help="send the records not sent yet as OpenTelemetry log records over OTLP/HTTP "
        "(URL: the collector, e.g. http://collector:4318; default: the OTEL_EXPORTER_OTLP_* "
        "variables, else a collector on localhost:4318); needs the 'otlp' extra",
    )
    parser.add_argument(
        "--git-ai-notes",
        action="store_true",
        help="write the ledger's AI attributions as git-ai authorship notes under "
        "refs/notes/ai, one per commit, with the intent in each session's "
        "custom_attributes (the ledger must verify; a note git-ai wrote is kept)",
    )
    parser.add_argument(
        "--repo",
        metavar="NAME",
        help="the repository's name in the export (default: owner/name of the origin "
        "remote, else the workspace directory's name)",
    )
    parser.add_argument(
        "--query", metavar="SQL", help=f"SQL, or a named query ({', '.join(NAMED_QUERIES)})"
    )
    parser.add_argument(
        "--from",
        dest="roots",
        metavar="DIR",
        type=Path,
        action="append",
        help="an export root to query (repeatable)",
    )
    parser.add_argument(
        "--param",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="a value for $NAME in the query (e.g. --param path=src/billing)",
    )
    parser.add_argument(
        "--format",
        choices=("table", "json", "csv"),
        default="table",
        help="query output format (default: table)",
    )
    add_workspace_arg(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError
    from intent_ls.export import ExportError

    modes = [args.out is not None, args.otlp is not None, args.query is not None]
    if sum(modes) + args.git_ai_notes != 1:
        raise CliError(
            "give one of --out DIR (export), --otlp [URL] (send), --git-ai-notes "
            "(git notes) or --query SQL --from DIR (query)"
        )
    if args.git_ai_notes:
        return _git_ai_notes(args)
    if args.query is None and (args.roots or args.param):
        flag = "--otlp" if args.otlp is not None else "--out"
        raise CliError(f"--from and --param go with --query, not with {flag}")
    try:
        if args.query is not None:
            return _query(args)
        if args.otlp is not None:
            return _otlp(args)
        return _export(args)
    except ExportError as exc:
        raise CliError(str(exc)) from None


def _export(args: argparse.Namespace) -> int:
    from intent_ls.export.exporter import export_ledger
    from intent_ls.export.source import TamperedLedger

    source = _source(args, "export")
    if source is None:
        return 0
    _, ledger, repo = source
    try:
        result = export_ledger(ledger, args.out, repo)
    except TamperedLedger as exc:
        return _tampered(ledger, exc, "exported")
    checked = _checked(result.verified_lines)
    if result.part is None:
        print(f"{result.repo}: nothing new to export ({checked})")
    else:
        print(
            f"{result.repo}: exported {result.records} record(s), {result.touches} touch "
            f"row(s) to {result.part} ({checked})"
        )
    return 0


def _otlp(args: argparse.Namespace) -> int:
    import os

    from intent_ls.export.layout import repo_url
    from intent_ls.export.otlp import resolve_endpoint, send_ledger
    from intent_ls.export.source import TamperedLedger

    endpoint = resolve_endpoint(args.otlp, os.environ)
    source = _source(args, "send")
    if source is None:
        return 0
    root, ledger, repo = source
    try:
        result = send_ledger(root, ledger, repo, endpoint, repo_url(root))
    except TamperedLedger as exc:
        return _tampered(ledger, exc, "sent")
    checked = _checked(result.verified_lines)
    if result.records == 0:
        print(f"{repo}: nothing new to send to {result.endpoint} ({checked})")
    else:
        print(
            f"{repo}: sent {result.records} record(s) as {result.log_records} log record(s) "
            f"to {result.endpoint} ({checked})"
        )
    return 0


def _git_ai_notes(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError
    from intent_ls.common.gitai_repo import GitError
    from intent_ls.export.gitai import export_notes
    from intent_ls.ledger.store import Ledger
    from intent_ls.ledger.verify import verify_ledger
    from intent_ls.spec.load import SPEC_RELPATH, load_spec_file

    if args.roots or args.param or args.repo is not None:
        raise CliError("--from, --param and --repo do not go with --git-ai-notes")
    source = _source(args, "write as git-ai notes")
    if source is None:
        return 0
    root, ledger, _ = source
    problem = verify_ledger(ledger).problem
    if problem is not None:
        print(
            f"{ledger}:{problem.line}: {problem.reason}\n"
            "intent-ls: the ledger does not verify; no note was written",
            file=sys.stderr,
        )
        return 1
    spec = load_spec_file(root / SPEC_RELPATH).spec

    def name(intent_id: str) -> str | None:
        intent = spec.get(intent_id) if spec is not None else None
        return intent.name if intent is not None else None

    try:
        result = export_notes(root, Ledger(ledger).read_records(), name)
    except GitError as exc:
        raise CliError(f"git: {exc}") from None
    print(
        f"refs/notes/ai: {result.written} note(s) written, {result.unchanged} already "
        f"up to date, {len(result.kept)} written by git-ai kept as they are"
    )
    return 0


def _source(args: argparse.Namespace, verb: str) -> tuple[Path, Path, str] | None:
    """(workspace, ledger, repository name) to export or send; None, said, if there is
    no ledger yet."""
    from intent_ls.export.layout import repo_name

    root = workspace_root(args)
    ledger = check_ledger_file(root)
    if not ledger.exists():
        print(f"intent-ls: nothing to {verb}: no ledger at {ledger}", file=sys.stderr)
        return None
    return root, ledger, args.repo if args.repo is not None else repo_name(root)


def _tampered(ledger: Path, exc: TamperedLedger, done: str) -> int:
    print(
        f"{ledger}:{exc.problem.line}: {exc.problem.reason}\n"
        f"intent-ls: the ledger does not verify; nothing was {done}",
        file=sys.stderr,
    )
    return 1


def _checked(verified_lines: int | None) -> str:
    if verified_lines is None:
        return "the whole ledger verified"
    return f"{verified_lines} appended line(s) verified"


def _query(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError
    from intent_ls.export.query import render, run_query

    if not args.roots:
        raise CliError("--query needs --from DIR (an export root; repeatable)")
    if args.repo is not None:
        raise CliError("--repo goes with --out or --otlp; filter on the repo column in the query")
    params = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or not name.isidentifier():
            raise CliError(f"--param {item!r}: expected NAME=VALUE")
        params[name] = value
    result = run_query(args.roots, args.query, params)
    sys.stdout.write(render(result, args.format))
    return 0
