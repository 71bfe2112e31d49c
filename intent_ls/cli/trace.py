"""``intent-ls trace verify|show``: check the ledger's integrity, list its records."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from intent_ls.cli.common import (
    add_format_arg,
    add_workspace_arg,
    check_ledger_file,
    display_path,
    print_json,
    workspace_relative,
    workspace_root,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "trace",
        help="verify or show the trace ledger (.orchestration/agent_trace.jsonl)",
        description="Verify or list the trace ledger, .orchestration/agent_trace.jsonl.",
    )
    verbs = parser.add_subparsers(
        dest="trace_verb", metavar="ACTION", required=True, help="verify or show"
    )
    verify = verbs.add_parser(
        "verify",
        help="check every line parses, validates and chains; exit 1 at the first bad line",
        description="Check that every ledger line parses, matches the Agent Trace schema and "
        "chains to the line before it. Exits 1 naming the first bad line.",
    )
    add_workspace_arg(verify)
    verify.set_defaults(func=run_verify)
    show = verbs.add_parser(
        "show",
        help="list ledger records, oldest first",
        description="List the ledger's records, oldest first. Lines that are not JSON "
        "records are reported on stderr and skipped (exit 1).",
    )
    add_workspace_arg(show)
    show.add_argument("--intent", metavar="ID", help="only records linked to this intent")
    show.add_argument(
        "--file",
        metavar="PATH",
        help="only records touching this file (relative to the current directory, or to "
        "the workspace root when the current directory is outside it)",
    )
    add_format_arg(show)
    show.set_defaults(func=run_show)
    repair = verbs.add_parser(
        "repair",
        help="resolve merge conflict markers in the ledger, keeping every record of both sides",
    )
    add_workspace_arg(repair)
    repair.set_defaults(func=run_repair)


def run_verify(args: argparse.Namespace) -> int:
    from intent_ls.ledger.verify import verify_ledger

    path = check_ledger_file(workspace_root(args))
    result = verify_ledger(path)
    if result.problem is not None:
        print(f"{path}:{result.problem.line}: {result.problem.reason}", file=sys.stderr)
        return 1
    print(f"ok: {result.records} records, chain intact")
    return 0


def _records(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The ledger's records; a line that is not a JSON object is named on stderr and
    skipped, so one damaged line does not hide every other record."""
    from intent_ls.ledger.store import Ledger

    shown = display_path(path)
    records: list[dict[str, Any]] = []
    bad = 0
    for number, (_, line) in enumerate(Ledger(path).iter_lines(), start=1):
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict):
            bad += 1
            print(f"{shown}:{number}: not a JSON record (skipped)", file=sys.stderr)
            continue
        records.append(record)
    return records, bad


def run_show(args: argparse.Namespace) -> int:
    from intent_ls.ledger.records import intent_meta

    root = workspace_root(args)
    path = check_ledger_file(root)
    wanted_file = workspace_relative(args.file.replace("\\", "/"), root) if args.file else None
    records, bad = _records(path)
    selected = []
    for record in records:
        meta = intent_meta(record)
        paths = [f.get("path") for f in _list(record.get("files")) if isinstance(f, dict)]
        if args.intent and meta.get("intent_id") != args.intent:
            continue
        if wanted_file and wanted_file not in paths:
            continue
        selected.append(record)
    if args.format == "json":
        print_json(selected)
    else:
        for record in selected:
            _print_record(record)
    if bad:
        print(
            f"intent-ls: {bad} ledger line(s) are not records; `intent-ls trace verify` "
            "checks the whole ledger",
            file=sys.stderr,
        )
    return 1 if bad else 0


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _print_record(record: dict[str, Any]) -> None:
    from intent_ls.ledger.records import intent_meta

    meta = intent_meta(record)
    nodes = ", ".join(
        str(n.get("name", "")) for n in _list(meta.get("ast_nodes")) if isinstance(n, dict)
    )
    for file in _list(record.get("files")):
        if not isinstance(file, dict):
            continue
        for conv in _list(file.get("conversations")):
            if not isinstance(conv, dict):
                continue
            who = conv.get("contributor")
            who = who if isinstance(who, dict) else {}
            label = str(who.get("type", "unknown")) + (
                f" ({who['model_id']})" if who.get("model_id") else ""
            )
            spans = ",".join(
                f"{r.get('start_line')}-{r.get('end_line')}"
                for r in _list(conv.get("ranges"))
                if isinstance(r, dict)
            )
            print(
                f"{record.get('timestamp', '?')}  {meta.get('intent_id') or '-'}  "
                f"{meta.get('kind', '?')}  {meta.get('mutation_class') or '-'}  "
                f"{file.get('path')}:{spans or '-'}  {label}" + (f"  [{nodes}]" if nodes else "")
            )


def run_repair(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError
    from intent_ls.ledger.repair import repair_ledger

    path = check_ledger_file(workspace_root(args))
    try:
        outcome = repair_ledger(path)
    except OSError as exc:
        raise CliError(f"trace repair failed: {exc}") from exc
    print(outcome.message)
    return 0 if outcome.verified else 1
