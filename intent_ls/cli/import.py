"""``intent-ls import spec-kit|openspec|kiro``: intents proposed from spec-driven tools.

Named like its verb, as every verb module is (``import`` is a keyword: the module is only
ever loaded by name, through :data:`intent_ls.cli.main.VERB_MODULES`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from intent_ls.cli.common import add_workspace_arg, workspace_relative, workspace_root

KINDS = ("spec-kit", "openspec", "kiro")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import",
        help="propose intents from spec-kit, OpenSpec or Kiro files",
        description=(
            "Read GitHub spec-kit (specs/<feature>/), OpenSpec (openspec/changes/<id>/) "
            "or Kiro (.kiro/specs/<feature>/) files and propose one intent per feature or "
            "change: owned_scope from the paths the tasks and design name, "
            "acceptance_criteria from the requirements (else the task list), status from "
            "the checkboxes, source linking back to the file. Prints the change to "
            "active_intents.yaml as a diff; --write applies it, keeping the file's "
            "comments and formatting and never changing an intent already there. Exit "
            "status: 0 fine, 1 a malformed source file (nothing written), 2 usage error."
        ),
    )
    parser.add_argument(
        "kind",
        metavar="KIND",
        choices=KINDS,
        help="the tool whose files to read: spec-kit, openspec or kiro",
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
