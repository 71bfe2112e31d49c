"""``intent-ls init``: set up a repository, and each clone of it, for intent-ls."""

from __future__ import annotations

import argparse
import subprocess
from typing import Any

from intent_ls.cli.common import add_workspace_arg, workspace_root

NEXT_STEPS = """\
next steps:
  1. describe your intents in .orchestration/active_intents.yaml (`intent-ls validate`)
  2. in your editor, start `intent-ls serve` and select an intent (`intent.select`)
  3. install your coding agent's hooks so its saves are recorded too (see the README)
  4. gate pull requests with `intent-ls check` in CI (README, "CI gate")
  5. in every other clone of this repository, run `intent-ls init` once: git does not
     copy the merge driver that keeps .orchestration/agent_trace.jsonl mergeable"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "init",
        help="create the spec, .intentignore and the git merge set-up (never overwrites)",
        description=(
            "Create what is missing and overwrite nothing: an example spec, .intentignore, "
            ".orchestration/.gitignore, .orchestration/.gitattributes, and this clone's "
            "merge drivers in .git/config. Run it once in every clone; a second run "
            "changes nothing."
        ),
    )
    add_workspace_arg(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError
    from intent_ls.workspace.setup import init_workspace

    root = workspace_root(args)
    try:
        result = init_workspace(root)
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", None) or str(exc)
        raise CliError(f"init failed: {str(detail).strip()}") from exc
    for step in result.steps:
        print(f"{step.action}: {step.path}")
    if not result.steps:
        print("nothing to do: this workspace and clone are already set up")
    if result.repository is None:
        print(
            "note: not a git repository; run `intent-ls init` again after `git init` to "
            "set up the ledger's merge driver"
        )
    if result.map_tracked:
        print(
            "note: .orchestration/intent_map.md is tracked by git; it is derived data, "
            "untrack it with `git rm --cached .orchestration/intent_map.md` (until then "
            "merges keep your side of it, and `intent-ls map` regenerates it)"
        )
    if result.steps:
        print(NEXT_STEPS)
    return 0
