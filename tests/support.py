"""What tests across tests/ share: one governed spec text, one ledger reader, one git,
one recorded save, the command line in a process, and applying an editor's text edits.

The example workspace (``examples/workspace``, the ``workspace`` fixture) is the other
shared starting point; this spec is for repositories a test builds from nothing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from intent_ls.ledger.records import build_mutation_record
from intent_ls.ledger.store import LEDGER_RELPATH, Ledger
from intent_ls.policy.destructive import TextEdit

#: Three intents: one live application scope, one live documentation scope, one finished.
SPEC = """\
active_intents:
  - id: INT-APP
    name: Application
    status: IN_PROGRESS
    owned_scope:
      - src/
  - id: INT-DOCS
    name: Documentation
    status: IN_PROGRESS
    owned_scope:
      - docs/
  - id: INT-OLD
    name: Finished work
    status: COMPLETED
    owned_scope:
      - legacy/
"""


def records(root: Path) -> list[dict[str, Any]]:
    """The ledger's records as intent-ls wrote them (none when there is no ledger)."""
    path = root / LEDGER_RELPATH
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    return [json.loads(line) for line in lines if line.strip()]


def git(root: Path, *args: str) -> str:
    """Runs git in ``root`` with a fixed identity; its stdout, failing the test on error."""
    done = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", *args],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


def recorded_save(
    ledger: Ledger, root: Path, rel: str, text: str, **options: Any
) -> dict[str, Any]:
    """A save of ``text`` over ``rel``'s current content as the editor and the hooks make
    one: the record built by the real builder (``options`` as ``build_mutation_record``
    takes them), the file written, the record appended; returns it sealed."""
    path = root / rel
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    record = build_mutation_record(root, rel, old, text, **options)
    assert record is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return ledger.append(record)


def intent_ls(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The command line as a user runs it, in a process of its own (exit status and
    output as text; a failure is the caller's to assert)."""
    return subprocess.run(
        [sys.executable, "-m", "intent_ls", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )


def committed(root: Path, message: str = "base") -> Path:
    """``root`` made a git repository (branch ``main``) whose one commit holds all of it."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return root


def apply_edits(text: str, edits: tuple[TextEdit, ...]) -> str:
    """Applies non-overlapping edits the way an editor applies a WorkspaceEdit."""
    lines = text.splitlines(keepends=True)

    def offset(pos: tuple[int, int]) -> int:
        return sum(len(line) for line in lines[: pos[0]]) + pos[1]

    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[: offset(edit.start)] + edit.text + text[offset(edit.end) :]
    return text


REPO = Path(__file__).resolve().parents[1]


def readme_section(start: str, end: str = "\n## ") -> str:
    """The README from just after ``start`` up to the next ``end`` (the next heading)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return readme.split(start, 1)[1].split(end, 1)[0]


def sh_blocks(text: str) -> list[str]:
    """The contents of the ```sh blocks in ``text``: commands the README shows."""
    return re.findall(r"```sh\n(.+?)\n```", text, flags=re.S)
