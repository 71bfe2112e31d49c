"""The README's "For teams" commands for the report and the importers, run as written."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from intent_ls.cli.main import main
from intent_ls.ledger.records import build_mutation_record
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.policy.approvals import Contributor
from tests.support import committed, readme_section, sh_blocks

SPEC = """\
active_intents:
  - id: INT-001
    name: Existing work
    status: IN_PROGRESS
    owned_scope:
      - lib/
"""

TASKS = """\
# Tasks: Albums

- [x] T001 Create the model in src/models/album.py
- [ ] T002 Create the service in src/services/album_service.py
"""


def team_commands() -> list[str]:
    block = readme_section(
        "<!-- For teams: report and import (begin) -->",
        "<!-- For teams: report and import (end) -->",
    )
    return [line for snippet in sh_blocks(block) for line in snippet.splitlines()]


def test_the_for_teams_commands_work_as_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    git_identity: None,
) -> None:
    commands = team_commands()
    assert commands == [
        "intent-ls report --out intent-report.html",
        "intent-ls check --report intent-report.html",
        "intent-ls import spec-kit",
        "intent-ls import spec-kit --write",
        "intent-ls check --enable done-without-change",
    ]
    root = tmp_path / "repo"
    (root / ".orchestration").mkdir(parents=True)
    (root / ".orchestration" / "active_intents.yaml").write_text(SPEC)
    (root / "specs" / "001-albums").mkdir(parents=True)
    (root / "specs" / "001-albums" / "tasks.md").write_text(TASKS)
    (root / "lib").mkdir()
    record = build_mutation_record(
        root,
        "lib/a.py",
        "",
        "x = 1\n",
        intent_id="INT-001",
        session_id="s",
        contributor=Contributor("ai", "anthropic/claude-test"),
        revision=None,
    )
    assert record is not None
    (root / "lib" / "a.py").write_text("x = 1\n")
    Ledger(ledger_path(root), fsync=False).append(record)
    committed(root, "start")
    monkeypatch.chdir(root)

    def run(command: str) -> tuple[int, str, str]:
        capsys.readouterr()
        rc = main(shlex.split(command)[1:])
        out, err = capsys.readouterr()
        return rc, out, err

    rc, out, _ = run(commands[0])
    assert rc == 0 and "report: intent-report.html" in out
    assert 'data-intent="INT-001"' in (root / "intent-report.html").read_text()
    (root / "intent-report.html").unlink()
    rc, _, err = run(commands[1])
    assert rc == 0 and "report: intent-report.html" in err
    assert (root / "intent-report.html").is_file()
    rc, out, _ = run(commands[2])
    assert rc == 0 and "+  - id: SPECKIT-001-albums" in out
    rc, _, err = run(commands[3])
    assert rc == 0 and "written to .orchestration/active_intents.yaml" in err
    rc, out, _ = run(commands[4])
    # T001 is ticked but no recorded save made src/models/album.py.
    assert rc == 1
    assert (
        "specs/001-albums/tasks.md:3:1: error: done-without-change: task T001 of "
        "SPECKIT-001-albums is marked done" in out
    )
