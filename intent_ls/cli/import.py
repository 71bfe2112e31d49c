"""``intent-ls import spec-kit|openspec|kiro``: intents proposed from spec-driven tools;
``intent-ls import git-ai``: git-ai's authorship notes as ledger records.

Named like its verb, as every verb module is (``import`` is a keyword: the module is only
ever loaded by name, through :data:`intent_ls.cli.main.VERB_MODULES`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from intent_ls.cli.common import add_workspace_arg, workspace_relative, workspace_root

KINDS = ("spec-kit", "openspec", "kiro", "git-ai")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import",
        help="propose intents from spec-kit, OpenSpec or Kiro files; read git-ai notes",
        description=(
            "Read GitHub spec-kit (specs/<feature>/), OpenSpec (openspec/changes/<id>/) "
            "or Kiro (.kiro/specs/<feature>/) files and propose one intent per feature or "
            "change: owned_scope from the paths the tasks and design name, "
            "acceptance_criteria from the requirements (else the task list), status from "
            "the checkboxes, source linking back to the file. Prints the change to "
            "active_intents.yaml as a diff; --write applies it, keeping the file's "
            "comments and formatting and never changing an intent already there. "
            "git-ai: read the AI authorship git-ai keeps in refs/notes/ai and, with "
            "--write, append it to the ledger as AI-authored records with no intent, so "
            "blame and check see it (a re-run appends nothing). Exit "
            "status: 0 fine, 1 a malformed source file (nothing written), 2 usage error."
        ),
    )
    parser.add_argument(
        "kind",
        metavar="KIND",
        choices=KINDS,
        help="the tool whose files to read: spec-kit, openspec, kiro or git-ai",
    )
    parser.add_argument(
        "path",
        nargs="?",
        help="a feature directory, or the directory holding them (default: the tool's own: "
        "specs/, openspec/changes/, .kiro/specs/)",
    )
    add_workspace_arg(parser)
    parser.add_argument(
        "--write", action="store_true", help="merge the proposed intents into the spec"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError
    from intent_ls.common.safe_io import UnsafePathError, read_sidecar, write_atomic
    from intent_ls.importers.common import NothingToImport
    from intent_ls.importers.model import SourceError
    from intent_ls.importers.plan import TOOLS, plan_import
    from intent_ls.spec.edit import SpecEditError
    from intent_ls.spec.load import SPEC_RELPATH

    root = workspace_root(args)
    if args.kind == "git-ai":
        return _git_ai(args, root)
    rel = None
    if args.path is not None:
        rel = workspace_relative(args.path, root).rstrip("/")
        if rel.startswith(("/", "../")) or rel == "..":
            raise CliError(f"{args.path}: not inside the workspace {root}")
    spec_path = root / SPEC_RELPATH
    try:
        spec_text = read_sidecar(spec_path, 4 * 1024 * 1024, anchor=root).decode("utf-8")
    except FileNotFoundError:
        spec_text = ""
    except UnicodeDecodeError as exc:
        raise CliError(f"{spec_path}: not UTF-8 text") from exc
    try:
        plan = plan_import(root, TOOLS[args.kind], rel, spec_text)
    except SourceError as exc:
        print(f"{exc.path}:{exc.line}: error: {exc.message}", file=sys.stderr)
        print("intent-ls: nothing imported: fix the file above and run again", file=sys.stderr)
        return 1
    except (NothingToImport, SpecEditError, UnsafePathError) as exc:
        raise CliError(str(exc)) from exc
    for note in plan.notes:
        print(f"intent-ls: note: {note}", file=sys.stderr)
    kept = len(plan.proposed) - len(plan.added)
    summary = (
        f"{len(plan.proposed)} {args.kind} intent(s) found: {len(plan.added)} new, "
        f"{kept} already in the spec (left as they are)"
    )
    if not plan.added:
        print(f"{summary}; nothing to import", file=sys.stderr)
        return 0
    sys.stdout.write(plan.diff())
    if args.write:
        write_atomic(spec_path, plan.new_text.encode("utf-8"), anchor=root)
        print(f"{summary}; written to {SPEC_RELPATH}", file=sys.stderr)
    else:
        print(f"{summary}; run again with --write to apply", file=sys.stderr)
    return 0


def _git_ai(args: argparse.Namespace, root: Path) -> int:
    from intent_ls.cli.common import check_ledger_file
    from intent_ls.cli.errors import CliError
    from intent_ls.common.gitai_repo import GitError
    from intent_ls.importers.gitai import plan_notes_import
    from intent_ls.ledger.store import Ledger

    if args.path is not None:
        raise CliError("git-ai takes no PATH: it reads the notes of the whole repository")
    ledger = Ledger(check_ledger_file(root))
    existing = {str(r.get("id")) for r in ledger.read_records()} if ledger.path.exists() else set()
    try:
        plan = plan_notes_import(root, existing)
    except GitError as exc:
        raise CliError(f"git: {exc}") from None
    for problem in plan.unreadable:
        print(f"intent-ls: note: refs/notes/ai {problem}; skipped", file=sys.stderr)
    summary = (
        f"git-ai notes: {len(plan.records)} new AI-authored record(s), "
        f"{plan.known} already in the ledger"
    )
    for record in plan.records:
        entry = record["files"][0]
        spans = ",".join(
            f"{r['start_line']}-{r['end_line']}" for r in entry["conversations"][0]["ranges"]
        )
        print(f"{record['vcs']['revision'][:12]} {entry['path']} {spans}")
    if not plan.records:
        print(f"{summary}; nothing to import", file=sys.stderr)
    elif args.write:
        for record in plan.records:
            ledger.append(record)
        print(f"{summary}; appended to {ledger.path.name}", file=sys.stderr)
    else:
        print(f"{summary}; run again with --write to append them", file=sys.stderr)
    return 0
