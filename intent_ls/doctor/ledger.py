"""The trace ledger: it verifies, and this clone can merge it (git never clones the
merge driver, so every clone needs ``intent-ls init`` once)."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from intent_ls.doctor.commands import resolve, words
from intent_ls.doctor.report import Check, fail, note, ok
from intent_ls.ledger.index import native
from intent_ls.ledger.store import ledger_path
from intent_ls.ledger.verify import verify_ledger
from intent_ls.workspace.setup import (
    ATTRIBUTES_RELPATH,
    DERIVED_DRIVER,
    LEDGER_DRIVER,
    find_git_dir,
)

AREA = "ledger"
INIT = "run `intent-ls init` in this clone."


def check_ledger(root: Path) -> list[Check]:
    return [_verify(root), _index_writer(), *_merge_driver(root)]


def _index_writer() -> Check:
    """Without the C writer nothing fails, but a fresh clone of a big ledger builds its
    index ~1.6 times as slowly (``docs/scale.md``): worth knowing before blaming CI."""
    name = "index writer"
    if native.available():
        return ok(AREA, name, "the trace index's cold builds use the compiled C writer.")
    if native.compiled():
        return note(
            AREA,
            name,
            "INTENT_LS_PURE_PYTHON turns the trace index's C writer off: a cold build of a "
            "big ledger takes ~1.6 times as long.",
            "unset INTENT_LS_PURE_PYTHON, unless comparing the two writers.",
        )
    return note(
        AREA,
        name,
        "the install did not compile the trace index's C writer: a cold build of a big "
        "ledger takes ~1.6 times as long.",
        "reinstall intent-ls where a C compiler and SQLite's headers are found "
        "(Debian: apt-get install gcc libsqlite3-dev).",
    )


def _verify(root: Path) -> Check:
    path = ledger_path(root)
    rel = path.relative_to(root).as_posix()
    if not path.exists():
        return ok(AREA, "verify", f"no {rel} yet (the first recorded save creates it).")
    if not path.is_file():
        return fail(
            AREA,
            "verify",
            f"{rel} is not a regular file.",
            f"move it away: {rel} must be the JSONL ledger.",
        )
    result = verify_ledger(path)
    if result.problem is not None:
        return fail(
            AREA,
            "verify",
            f"{rel}:{result.problem.line}: {result.problem.reason}",
            "`intent-ls trace verify` names the line; after a merge conflict "
            "`intent-ls trace repair`; otherwise restore the ledger from git.",
        )
    return ok(AREA, "verify", f"{result.records} record(s), chain intact.")


def _merge_driver(root: Path) -> list[Check]:
    found = find_git_dir(root)
    if found is None:
        return [note(AREA, "merge driver", "not a git repository: no merge driver to set up.")]
    top, _ = found
    checks = []
    try:
        attributes = (root / ATTRIBUTES_RELPATH).read_text(encoding="utf-8", errors="replace")
    except OSError:
        attributes = ""
    if f"merge={LEDGER_DRIVER}" not in attributes:
        checks.append(
            fail(
                AREA,
                "merge attributes",
                f"{ATTRIBUTES_RELPATH} does not give the ledger the merge driver: branches "
                "that both record saves will conflict.",
                "run `intent-ls init` and commit .orchestration/.gitattributes.",
            )
        )
    for driver in (LEDGER_DRIVER, DERIVED_DRIVER):
        checks.append(_driver(top, driver))
    return checks


def _driver(top: Path, driver: str) -> Check:
    name = f"merge driver {driver}"
    try:
        done = subprocess.run(
            ["git", "config", "--get", f"merge.{driver}.driver"],
            cwd=top,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return note(
            AREA, name, f"git could not be asked ({exc}).", "install git, then run doctor again."
        )
    command = done.stdout.strip()
    if done.returncode != 0 or not command:
        return fail(
            AREA,
            name,
            "not set up in this clone (git never copies it from the repository): merges "
            "of the ledger will conflict.",
            INIT,
        )
    program = next(iter(words(command)), "")
    if resolve(program, top, os.environ) is None:
        return fail(
            AREA,
            name,
            f"its command names {shlex.quote(program)}, which is not an executable "
            "(a removed virtual environment?).",
            f"`git config --unset merge.{driver}.driver`, then {INIT}",
        )
    return ok(AREA, name, f"set up in this clone ({shlex.quote(program)}).")
