"""``intent-ls trace verify|show``: check the ledger's integrity, list its records."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from intent_ls.cli.common import add_format_arg, add_workspace_arg, print_json, workspace_root


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "trace", help="verify or show the trace ledger (.orchestration/agent_trace.jsonl)"
    )
    verbs = parser.add_subparsers(dest="trace_verb", metavar="ACTION", required=True)
    verify = verbs.add_parser(
        "verify", help="check every line parses, validates and chains; exit 1 at the first bad line"
    )
    add_workspace_arg(verify)
    verify.set_defaults(func=run_verify)
    show = verbs.add_parser("show", help="list ledger records, newest last")
    add_workspace_arg(show)
    show.add_argument("--intent", metavar="ID", help="only records linked to this intent")
    show.add_argument("--file", metavar="PATH", help="only records touching this path")
    add_format_arg(show)
    show.set_defaults(func=run_show)
    repair = verbs.add_parser(
        "repair",
        help="resolve merge conflict markers in the ledger, keeping every record of both sides",
    )
    add_workspace_arg(repair)
    repair.set_defaults(func=run_repair)


def run_verify(args: argparse.Namespace) -> int:
    from intent_ls.ledger.store import ledger_path
    from intent_ls.ledger.verify import verify_ledger

    path = ledger_path(workspace_root(args))
    result = verify_ledger(path)
    if result.problem is not None:
        print(f"{path}:{result.problem.line}: {result.problem.reason}", file=sys.stderr)
        return 1
    print(f"ok: {result.records} records, chain intact")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from intent_ls.ledger.records import intent_meta
    from intent_ls.ledger.store import Ledger, ledger_path

    root = workspace_root(args)
    wanted_file = args.file.replace("\\", "/").removeprefix("./") if args.file else None
    selected = []
    for record in Ledger(ledger_path(root)).read_records():
        meta = intent_meta(record)
        paths = [f.get("path") for f in record.get("files", [])]
        if args.intent and meta.get("intent_id") != args.intent:
            continue
        if wanted_file and wanted_file not in paths:
            continue
        selected.append(record)
    if args.format == "json":
        print_json(selected)
        return 0
    for record in selected:
        meta = intent_meta(record)
        for file in record.get("files", []):
            for conv in file.get("conversations", []):
                who = conv.get("contributor", {})
                label = who.get("type", "unknown") + (
                    f" ({who['model_id']})" if who.get("model_id") else ""
                )
                ranges = conv.get("ranges", [])
                spans = ",".join(f"{r['start_line']}-{r['end_line']}" for r in ranges)
                nodes = ", ".join(n.get("name", "") for n in meta.get("ast_nodes", []))
                print(
                    f"{record['timestamp']}  {meta.get('intent_id') or '-'}  "
                    f"{meta.get('kind', '?')}  {meta.get('mutation_class') or '-'}  "
                    f"{file.get('path')}:{spans or '-'}  {label}"
                    + (f"  [{nodes}]" if nodes else "")
                )
    return 0


def run_repair(args: argparse.Namespace) -> int:
    from intent_ls.cli.main import CliError
    from intent_ls.ledger.repair import repair_ledger
    from intent_ls.ledger.store import ledger_path

    path = ledger_path(workspace_root(args))
    try:
        outcome = repair_ledger(path)
    except OSError as exc:
        raise CliError(f"trace repair failed: {exc}") from exc
    print(outcome.message)
    return 0 if outcome.verified else 1
