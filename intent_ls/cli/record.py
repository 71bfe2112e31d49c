"""``intent-ls record PATH… [--intent ID]`` and ``intent-ls approve …``: the terminal's
front door onto the ledger (see :mod:`intent_ls.cli.terminal`)."""

from __future__ import annotations

import argparse
import sys

from intent_ls.cli.common import add_workspace_arg, typed_path, workspace_root


def register(subparsers: argparse._SubParsersAction) -> None:
    record = subparsers.add_parser(
        "record",
        help="record changes made outside an editor or agent (formatter, generator)",
        description="Judge and record the current content of PATH… in the trace ledger "
        "exactly as an editor save would (verdicts included). The old side is git HEAD.",
    )
    record.add_argument("paths", nargs="+", metavar="PATH", help="the files to record")
    record.add_argument("--intent", metavar="ID", help="the IN_PROGRESS intent the change is for")
    add_workspace_arg(record)
    record.set_defaults(func=run_record)

    approve = subparsers.add_parser(
        "approve",
        help="approve a pending verdict (destructive edit, out-of-scope change, held command)",
        description="Record a human approval in the trace ledger, as the editor's "
        "intent.approve action does.",
    )
    approve.add_argument("code", metavar="CODE", help="the verdict code to approve")
    approve.add_argument("path", nargs="?", metavar="PATH", help="the file the verdict is about")
    approve.add_argument(
        "--hash", dest="content_hash", metavar="HASH", help="the content hash it is keyed on"
    )
    approve.add_argument("--lines", metavar="START-END", help="the lines approved (1-based)")
    approve.add_argument("--command", metavar="COMMAND", help="the exact shell command held")
    approve.add_argument("--reason", metavar="TEXT", help="why (kept in the record)")
    approve.add_argument("--intent", metavar="ID", help="the intent the approval is for")
    add_workspace_arg(approve)
    approve.set_defaults(func=run_approve)


def run_record(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError
    from intent_ls.cli.terminal import TerminalError, record_paths
    from intent_ls.policy.approvals import Contributor

    root = workspace_root(args)
    paths = [typed_path(p, root) for p in args.paths]
    try:
        results = record_paths(root, paths, args.intent, Contributor("human"))
    except (TerminalError, OSError) as exc:
        raise CliError(str(exc)) from None
    status = 0
    for item in results:
        codes = f" [{', '.join(item.verdicts)}]" if item.verdicts else ""
        print(f"{item.rel}: {item.status}{codes}")
        for problem in item.open:
            status = 1
            print(f"  {problem}", file=sys.stderr)
    if status:
        print(
            "unapproved verdicts were recorded: approve them with `intent-ls approve CODE "
            "PATH`, or select an owning intent with --intent",
            file=sys.stderr,
        )
    return status


def run_approve(args: argparse.Namespace) -> int:
    from intent_ls.agents.approval_guard import agent_shell
    from intent_ls.cli.errors import CliError
    from intent_ls.cli.terminal import TerminalError, approve

    marker = agent_shell()
    if marker is not None:
        raise CliError(
            f"intent-ls approve is a human's decision and refuses to run in a coding "
            f"agent's shell ({marker} is set): run it yourself in a terminal, or answer "
            "the agent's permission prompt"
        )

    lines = None
    if args.lines:
        try:
            start, _, end = args.lines.partition("-")
            lines = (int(start), int(end or start))
        except ValueError:
            raise CliError(f"--lines wants START-END, not {args.lines!r}") from None
    root = workspace_root(args)
    try:
        record = approve(
            root,
            args.code,
            str(typed_path(args.path, root)) if args.path else None,
            content_hash=args.content_hash,
            lines=lines,
            command=args.command,
            reason=args.reason,
            intent_id=args.intent,
        )
    except (TerminalError, OSError) as exc:
        raise CliError(str(exc)) from None
    approval = record["metadata"]["intent_ls"]["approvals"][0]
    print(
        f"approved {approval['verdict_code']} for {approval['path']} "
        f"({approval['content_hash']}); record {record['id']}"
    )
    return 0
