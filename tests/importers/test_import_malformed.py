"""Malformed source files: a message with the file and line, exit 1, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from intent_ls.cli.main import main
from intent_ls.spec.load import SPEC_RELPATH
from tests.importers.conftest import KIRO_TASKS, OPENSPEC_SPEC, SPEC, SPECKIT_TASKS, write

CASES = [
    (
        "spec-kit",
        "specs/001-photo-albums/tasks.md",
        SPECKIT_TASKS.replace("- [ ] T014", "- [?] T014"),
        "- [?] T014",
        "unknown checkbox '[?]'",
    ),
    (
        "spec-kit",
        "specs/001-photo-albums/tasks.md",
        SPECKIT_TASKS.replace("- [ ] T012 [P] [US1]", "- [ ] [P] [US1]"),
        "- [ ] [P] [US1]",
        "a spec-kit task starts with its id",
    ),
    (
        "spec-kit",
        "specs/001-photo-albums/tasks.md",
        SPECKIT_TASKS.replace("T014", "T012"),
        "- [ ] T012 [US1] Implement",
        "task T012 is listed twice (first on line 27)",
    ),
    (
        "spec-kit",
        "specs/001-photo-albums/tasks.md",
        SPECKIT_TASKS.replace("## Phase 1", "```python\n## Phase 1"),
        "```python",
        "code block opened here is never closed",
    ),
    (
        "spec-kit",
        "specs/001-photo-albums/tasks.md",
        SPECKIT_TASKS.replace("---\n\n# Tasks", "\n# Tasks"),
        "---",
        "front matter opened with '---' is never closed",
    ),
    (
        "spec-kit",
        "specs/001-photo-albums/tasks.md",
        SPECKIT_TASKS.replace("-->", ""),
        "<!--",
        "HTML comment opened here is never closed",
    ),
    (
        "openspec",
        "openspec/changes/add-2fa/specs/auth/spec.md",
        "### Requirement: Orphan\nThe system SHALL.\n\n#### Scenario: x\n- **WHEN** a\n",
        "### Requirement: Orphan",
        "a requirement outside a '## ADDED|MODIFIED|REMOVED|RENAMED Requirements' section",
    ),
    (
        "openspec",
        "openspec/changes/add-2fa/specs/auth/spec.md",
        OPENSPEC_SPEC.replace("#### Scenario: OTP required", "### Scenario: OTP required"),
        "### Scenario: OTP",
        "a scenario heading is exactly '#### Scenario: Name'",
    ),
    (
        "openspec",
        "openspec/changes/add-2fa/specs/auth/spec.md",
        "## ADDED Requirements\n### Requirement: No scenario\nThe system SHALL.\n",
        "### Requirement: No scenario",
        "requirement 'No scenario' has no '#### Scenario:'",
    ),
    (
        "kiro",
        ".kiro/specs/csv-export/tasks.md",
        KIRO_TASKS.replace("- [ ] 4. Audit", "- [ ] Audit"),
        "- [ ] Audit",
        "a Kiro task starts with its number",
    ),
    (
        "kiro",
        ".kiro/specs/csv-export/tasks.md",
        KIRO_TASKS.replace("- [-] 2.", "- [?] 2."),
        "- [?] 2.",
        "unknown checkbox '[?]'",
    ),
]


def run(ws: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(["import", *args, "--workspace", str(ws)])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize(("kind", "rel", "text", "marker", "message"), CASES)
def test_malformed_file_is_named_with_its_line_and_nothing_is_written(
    ws: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    rel: str,
    text: str,
    marker: str,
    message: str,
) -> None:
    """``marker`` is the text of the line the message must name."""
    line = text[: text.index(marker)].count("\n") + 1
    write(ws, {rel: text})
    rc, out, err = run(ws, capsys, kind, "--write")
    assert rc == 1
    assert out == ""
    first = err.splitlines()[0]
    assert first.startswith(f"{rel}:{line}: error: "), first
    assert message in first
    assert "nothing imported" in err and "Traceback" not in err
    assert (ws / SPEC_RELPATH).read_text() == SPEC


def test_a_file_that_is_not_utf8_is_named_with_its_line(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = ws / ".kiro/specs/csv-export/requirements.md"
    path.write_bytes(b"# Requirements\n\nok\n\xff broken\n")
    rc, _, err = run(ws, capsys, "kiro", "--write")
    assert rc == 1
    assert err.startswith(".kiro/specs/csv-export/requirements.md:4: error: not UTF-8 text")
    assert (ws / SPEC_RELPATH).read_text() == SPEC


def test_a_symlinked_source_file_is_refused(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("- [x] 1. Leak `src/x.py`\n")
    tasks = ws / ".kiro/specs/csv-export/tasks.md"
    tasks.unlink()
    tasks.symlink_to(outside)
    rc, out, err = run(ws, capsys, "kiro", "--write")
    assert rc == 1 and out == ""
    assert err.startswith(
        ".kiro/specs/csv-export/tasks.md:1: error: resolves outside the workspace"
    )
    # A symlink to a file inside the workspace is refused too: sources are plain files.
    inside = ws / "notes.md"
    inside.write_text("- [x] 1. Write `src/x.py`\n")
    tasks.unlink()
    tasks.symlink_to(inside)
    rc, out, err = run(ws, capsys, "kiro", "--write")
    assert rc == 2 and out == ""
    assert err.startswith("intent-ls: error:") and "symlink" in err
    assert (ws / SPEC_RELPATH).read_text() == SPEC
