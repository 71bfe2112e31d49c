"""``intent-ls init``: what a repository (and each clone of it) needs for intent-ls.

Two kinds of set-up, because git keeps them apart:

* committed files, made once per repository: the spec with an example intent,
  ``.intentignore``, ``.orchestration/.gitignore`` (local state) and
  ``.orchestration/.gitattributes`` (which merge driver the ledger and the map use);
* the merge drivers themselves, in ``.git/config``: git never clones configuration
  (a repository must not be able to make its clones run commands), so every clone
  needs ``init`` once. :func:`clone_setup_problems` tells ``serve``, ``check`` and the
  agent hooks when that step is missing, cheaply and without spawning git.

Nothing that exists is overwritten: a file is created only when absent, an attribute
line or a config key only when missing.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from intent_ls.spec.load import SPEC_RELPATH
from intent_ls.workspace.discover import INTENTIGNORE

LEDGER_DRIVER = "intent-ls-ledger"
DERIVED_DRIVER = "intent-ls-derived"
ATTRIBUTES_RELPATH = ".orchestration/.gitattributes"
GITIGNORE_RELPATH = ".orchestration/.gitignore"
#: Attribute lines in ``.orchestration/.gitattributes`` (paths relative to that folder).
ATTRIBUTE_LINES = (
    f"agent_trace.jsonl merge={LEDGER_DRIVER}",
    f"intent_map.md merge={DERIVED_DRIVER}",
)

SPEC_TEXT = """\
# The intents of this repository. Every saved change of a governed file answers to the
# intent selected in the editor (or by the agent), and is recorded in
# .orchestration/agent_trace.jsonl. `intent-ls validate` checks this file.
active_intents:
  - id: INT-001                       # a stable id, quoted if it is a number
    name: Describe your first intent  # what this piece of work is for
    status: DRAFT                     # DRAFT | IN_PROGRESS | BLOCKED | COMPLETED | ARCHIVED
    owned_scope:                      # gitignore-style globs this intent may change
      - src/**
    constraints:                      # what the work must not do
      - Keep the public API backward compatible
    acceptance_criteria:              # how you know it is done
      - The test suite passes
"""

INTENTIGNORE_TEXT = """\
# Files intent-ls never governs (gitignore syntax): no scope diagnostics, no records.

# Lock files: written by package managers, not by intent.
*.lock
package-lock.json
pnpm-lock.yaml
go.sum

# Build output and local environments.
build/
dist/
out/
target/
node_modules/
.venv/
__pycache__/
*.egg-info/

# Generated code: regenerated from its source, which is what intents govern.
*.generated.*
*_pb2.py
*.pb.go
*.min.js
"""

GITIGNORE_TEXT = """\
# intent-ls local state: never committed.
# Caches, locks and the selected intent (one per user and clone).
.local/
# Torn lines a crashed writer left behind, kept for inspection.
agent_trace.jsonl.quarantine
# Derived from the ledger and the spec: `intent-ls map` (or the language server)
# regenerates it, so it never needs merging. See docs/ledger.md.
intent_map.md
"""

ATTRIBUTES_TEXT = (
    "# How git merges intent-ls's files; the drivers are set up per clone by `intent-ls "
    "init`.\n" + "".join(line + "\n" for line in ATTRIBUTE_LINES)
)


class Step(NamedTuple):
    path: str  # what was created or changed, as shown to the user
    action: str  # "created", "updated", "configured"


class InitResult(NamedTuple):
    steps: tuple[Step, ...]
    repository: Path | None  # the git work tree, None outside git
    map_tracked: bool  # intent_map.md is still in the git index


def find_git_dir(start: Path) -> tuple[Path, Path] | None:
    """(work tree top, the directory holding ``config``) of the repository containing
    ``start``, read from the file system: a linked worktree's ``.git`` file points at
    its git dir, whose ``commondir`` holds the shared config."""
    for top in (start, *start.parents):
        dotgit = top / ".git"
        if dotgit.is_dir():
            return top, dotgit
        if dotgit.is_file():
            try:
                text = dotgit.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if not text.startswith("gitdir:"):
                return None
            gitdir = (top / text.removeprefix("gitdir:").strip()).resolve()
            common = gitdir / "commondir"
            try:
                return top, (gitdir / common.read_text(encoding="utf-8").strip()).resolve()
            except OSError:
                return top, gitdir
    return None


def driver_commands() -> dict[str, str]:
    """The commands git runs, with this interpreter's absolute path: git does not see
    the user's virtual environment on PATH, and the command must run the same
    intent-ls that was set up. ``-P``: git runs drivers in the repository's top folder,
    and ``-m`` would put it first on the import path, so a branch that brought its own
    ``intent_ls/`` package would run in place of the one set up."""
    python = shlex.quote(sys.executable)
    return {
        LEDGER_DRIVER: f"{python} -P -m intent_ls merge-driver %O %A %B",
        DERIVED_DRIVER: f"{python} -P -m intent_ls merge-driver --derived %O %A %B",
    }


def _configured_drivers(config: Path) -> dict[str, str]:
    """Merge drivers with a ``driver`` key in a git config file, with their command (a
    plain reading of its section syntax, enough for what ``git config`` writes)."""
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    found: dict[str, str] = {}
    section: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            head = line.strip("[]").strip()
            name, _, sub = head.partition(" ")
            section = sub.strip().strip('"') if name.lower() == "merge" else None
        elif section and line.split("=", 1)[0].strip().lower() == "driver":
            found[section] = line.split("=", 1)[1].strip() if "=" in line else ""
    return found


#: What a ledger driver's command must run: anything else (``true``, ``cat %A``) settles
#: every merge by keeping one side and silently drops the other side's records.
_OUR_DRIVER = re.compile(r"intent[-_]ls\S*\s+merge-driver\b")
#: Ours as set up before ``-P`` (:func:`driver_commands`): it runs a merged branch's own
#: ``intent_ls/`` package if there is one; ``intent-ls init`` replaces it.
_PATH_FIRST_DRIVER = re.compile(r"^(?!.*\s-[PI]\s).*\s-m\s+intent_ls\s")


def _current(command: str) -> bool:
    return bool(_OUR_DRIVER.search(command)) and not _PATH_FIRST_DRIVER.search(command)


def clone_setup_problems(workspace: Path) -> list[str]:
    """Why merges of this workspace's ledger would conflict, one sentence each; empty when
    set up (or when the workspace is not in git, or has no ledger yet to protect).
    Reads two small files, spawns nothing: cheap enough for every hook call."""
    root = Path(workspace)
    orchestration = root / ".orchestration"
    if not (orchestration / "agent_trace.jsonl").is_file():
        return []
    found = find_git_dir(root.resolve())
    if found is None:
        return []
    _, gitdir = found
    problems = []
    try:
        attributes = (orchestration / ".gitattributes").read_text(encoding="utf-8")
    except OSError:
        attributes = ""
    if f"merge={LEDGER_DRIVER}" not in attributes:
        problems.append(
            "the ledger has no merge driver: branches that both record saves will conflict "
            "in .orchestration/agent_trace.jsonl; run `intent-ls init`"
        )
    drivers = _configured_drivers(gitdir / "config")
    if LEDGER_DRIVER not in drivers:
        problems.append(
            "this clone lacks intent-ls's merge driver (git never copies it from the "
            "repository): run `intent-ls init` in this clone"
        )
    elif not _OUR_DRIVER.search(drivers[LEDGER_DRIVER]):
        problems.append(
            f"the ledger's merge driver runs {drivers[LEDGER_DRIVER]!r}, not intent-ls: the "
            "next merge would drop the other side's records; run `intent-ls init` in this clone"
        )
    elif not _current(drivers[LEDGER_DRIVER]):
        problems.append(
            "the ledger's merge driver runs `python -m intent_ls` without -P: a branch "
            "carrying its own intent_ls/ folder would run in its place; run `intent-ls init` "
            "in this clone"
        )
    return problems


def init_workspace(workspace: Path) -> InitResult:
    """Creates what is missing; returns what it did (nothing on a second run)."""
    root = Path(workspace)
    steps: list[Step] = []
    for rel, text in (
        (SPEC_RELPATH, SPEC_TEXT),
        (INTENTIGNORE, INTENTIGNORE_TEXT),
        (GITIGNORE_RELPATH, GITIGNORE_TEXT),
    ):
        path = root / rel
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            steps.append(Step(rel, "created"))
    found = find_git_dir(root.resolve())
    if found is None:
        return InitResult(tuple(steps), None, False)
    steps += _add_attributes(root / ATTRIBUTES_RELPATH)
    top, gitdir = found
    configured = _configured_drivers(gitdir / "config")
    for name, command in driver_commands().items():
        if _current(configured.get(name, "")):
            continue  # a driver that is not intent-ls's, or an unsafe one, is replaced
        _git(top, "config", f"merge.{name}.name", f"intent-ls: {name}")
        _git(top, "config", f"merge.{name}.driver", command)
        steps.append(Step(f'.git/config [merge "{name}"]', "configured"))
    rel_map = (root.resolve() / ".orchestration" / "intent_map.md").relative_to(top.resolve())
    tracked = bool(_git(top, "ls-files", "--", rel_map.as_posix()).strip())
    return InitResult(tuple(steps), top, tracked)


def _add_attributes(path: Path) -> list[Step]:
    try:
        existing = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ATTRIBUTES_TEXT, encoding="utf-8")
        return [Step(ATTRIBUTES_RELPATH, "created")]
    present = {line.strip() for line in existing.splitlines()}
    missing = [line for line in ATTRIBUTE_LINES if line not in present]
    if not missing:
        return []
    separator = "" if existing.endswith("\n") or not existing else "\n"
    with path.open("a", encoding="utf-8") as f:
        f.write(separator + "".join(line + "\n" for line in missing))
    return [Step(ATTRIBUTES_RELPATH, "updated")]


def _git(top: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=top, check=True, capture_output=True, text=True
    ).stdout


def warn_clone_setup(workspace: Path) -> None:
    """Prints :func:`clone_setup_problems` to stderr (the CLI's and hooks' warning)."""
    for problem in clone_setup_problems(workspace):
        print(f"intent-ls: warning: {problem}", file=sys.stderr)
