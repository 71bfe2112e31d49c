"""``intent-ls import``: real spec-kit, OpenSpec and Kiro files to intents in the spec."""

from __future__ import annotations

from pathlib import Path

import pytest

from intent_ls.cli.main import main
from intent_ls.spec.load import SPEC_RELPATH, load_spec_text
from intent_ls.spec.model import Status
from tests.importers.conftest import SPEC, write


def run(ws: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(["import", *args, "--workspace", str(ws)])
    out, err = capsys.readouterr()
    return rc, out, err


def imported(ws: Path, intent_id: str):  # type: ignore[no-untyped-def]
    result = load_spec_text((ws / SPEC_RELPATH).read_text())
    assert not result.has_errors, result.problems
    assert result.spec is not None
    intent = result.spec.get(intent_id)
    assert intent is not None
    return intent


def test_speckit_feature_becomes_one_intent(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(ws, capsys, "spec-kit", "--write")
    assert rc == 0, err
    assert out.startswith("--- a/.orchestration/active_intents.yaml\n+++ b/")
    assert "+  - id: SPECKIT-001-photo-albums" in out
    assert "written to .orchestration/active_intents.yaml" in err
    intent = imported(ws, "SPECKIT-001-photo-albums")
    assert intent.name == "Photo albums"
    # Some tasks ticked ([X] as /speckit.implement writes it, or [x]), some open.
    assert intent.status is Status.IN_PROGRESS
    assert intent.patterns == (
        "tests/contract/test_albums.py",
        "src/models/album.py",
        "src/services/album_service.py",
        "src/api/albums.py",  # named by plan.md
    )
    assert intent.acceptance_criteria == (
        "FR-001: System MUST allow users to create albums",
        "FR-002: System MUST sort albums by date",
        "SC-001: Users create an album in under 30 seconds",
    )
    assert intent.source == "specs/001-photo-albums/tasks.md"


def test_openspec_change_becomes_one_intent_and_the_archive_is_left_out(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, _, err = run(ws, capsys, "openspec", "--write")
    assert rc == 0, err
    assert "1 openspec intent(s) found" in err
    intent = imported(ws, "OPENSPEC-add-2fa")
    assert intent.status is Status.IN_PROGRESS
    assert intent.patterns == (
        "migrations/004_otp.sql",
        "src/auth/otp.ts",
        "src/auth/login.ts",
        "tests/auth/otp.test.ts",
    )
    # Added and modified requirements, not the removed one.
    assert intent.acceptance_criteria == (
        "Two-Factor Authentication: Users MUST provide a second factor during login.",
        "Session Lifetime: Sessions SHALL expire after 12 hours.",
    )
    assert intent.source == "openspec/changes/add-2fa/tasks.md"
    assert "archive" not in (ws / SPEC_RELPATH).read_text()


def test_kiro_spec_becomes_one_intent(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(ws, capsys, "kiro", "--write")
    assert rc == 0, err
    intent = imported(ws, "KIRO-csv-export")
    assert intent.status is Status.IN_PROGRESS
    assert intent.patterns == (
        "src/export/__init__.py",
        "src/export/csv_writer.py",
        "src/export/service.py",
        "tests/export/test_csv_props.py",
        "src/audit/log.py",
    )
    assert intent.acceptance_criteria == (
        "1.1 WHEN the user requests an export THEN the system SHALL produce a CSV file",
        "1.2 IF the user has no orders THEN the system SHALL return an empty file with headers",
        "2.1 WHEN an export completes THEN the system SHALL write an audit entry",
    )
    assert intent.source == ".kiro/specs/csv-export/tasks.md"


def test_status_follows_the_checkboxes(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        ws,
        {
            ".kiro/specs/all-done/tasks.md": (
                "# Implementation Plan\n\n- [x] 1. Do `src/a.py`\n"
                "- [ ]* 2. Optional extra tests in tests/a_test.py\n"
            ),
            ".kiro/specs/not-started/tasks.md": "- [ ] 1. Write `src/b.py`\n",
        },
    )
    rc, _, err = run(ws, capsys, "kiro", "--write")
    assert rc == 0, err
    # An optional task left open does not keep a feature from being complete.
    assert imported(ws, "KIRO-all-done").status is Status.COMPLETED
    assert imported(ws, "KIRO-not-started").status is Status.DRAFT
    assert imported(ws, "KIRO-csv-export").status is Status.IN_PROGRESS


def test_without_write_nothing_changes(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(ws, capsys, "spec-kit")
    assert rc == 0 and "+  - id: SPECKIT-001-photo-albums" in out
    assert "run again with --write" in err
    assert (ws / SPEC_RELPATH).read_text() == SPEC


def test_write_keeps_every_existing_byte_and_is_idempotent(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for kind in ("spec-kit", "openspec", "kiro"):
        assert run(ws, capsys, kind, "--write")[0] == 0
    text = (ws / SPEC_RELPATH).read_text()
    # The original file is intact around the insertion: comments, spacing, quoting.
    head, _ = SPEC.split("\n# trailing comment about the list\n")
    assert text.startswith(head)
    assert text.endswith("\n# trailing comment about the list\n")
    assert text.index("SPECKIT-") < text.index("OPENSPEC-") < text.index("KIRO-")
    for kind in ("spec-kit", "openspec", "kiro"):
        rc, out, err = run(ws, capsys, kind, "--write")
        assert (rc, out) == (0, "")
        assert "1 already in the spec" in err and "nothing to import" in err
    assert (ws / SPEC_RELPATH).read_text() == text


def test_an_existing_intent_is_never_changed(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = (
        SPEC
        + "  - id: SPECKIT-001-photo-albums\n    name: Mine, hand-edited\n    status: BLOCKED\n"
        "    owned_scope: [src/]\n"
    )
    (ws / SPEC_RELPATH).write_text(mine)
    rc, out, _ = run(ws, capsys, "spec-kit", "--write")
    assert (rc, out) == (0, "")
    assert (ws / SPEC_RELPATH).read_text() == mine
    # Renamed by hand but still linked to its source: also left alone.
    renamed = SPEC + (
        "  - id: ALBUMS\n    name: Albums\n    status: DRAFT\n    owned_scope: [src/]\n"
        "    source: specs/001-photo-albums/tasks.md\n"
    )
    (ws / SPEC_RELPATH).write_text(renamed)
    assert run(ws, capsys, "spec-kit", "--write")[1] == ""
    assert (ws / SPEC_RELPATH).read_text() == renamed


@pytest.mark.parametrize(
    "spec",
    [None, "", "active_intents:\n", "active_intents: []  # none yet\n", "active_intents: ~\n"],
)
def test_import_into_a_missing_or_empty_spec(
    ws: Path, capsys: pytest.CaptureFixture[str], spec: str | None
) -> None:
    path = ws / SPEC_RELPATH
    if spec is None:
        path.unlink()
    else:
        path.write_text(spec)
    rc, _, err = run(ws, capsys, "openspec", "--write")
    assert rc == 0, err
    assert imported(ws, "OPENSPEC-add-2fa").status is Status.IN_PROGRESS
    if spec and "#" in spec:
        assert "# none yet" in path.read_text()


def test_crlf_spec_stays_crlf(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = ws / SPEC_RELPATH
    path.write_bytes(SPEC.replace("\n", "\r\n").encode())
    assert run(ws, capsys, "kiro", "--write")[0] == 0
    data = path.read_bytes()
    assert b"KIRO-csv-export" in data
    assert data.count(b"\n") == data.count(b"\r\n")


def test_a_flow_list_spec_is_refused(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "active_intents: [{id: A, name: a, status: DRAFT, owned_scope: [a/]}]\n"
    (ws / SPEC_RELPATH).write_text(text)
    rc, _, err = run(ws, capsys, "kiro", "--write")
    assert rc == 2 and "not a block list" in err
    assert (ws / SPEC_RELPATH).read_text() == text


def test_one_feature_directory_can_be_named(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(ws, {"specs/002-other/tasks.md": "# Tasks: Other\n\n- [ ] T001 Do `src/o.py`\n"})
    rc, out, _ = run(ws, capsys, "spec-kit", str(ws / "specs" / "002-other"), "--write")
    assert rc == 0
    assert "SPECKIT-002-other" in out and "SPECKIT-001" not in out


def test_a_feature_that_names_no_file_is_imported_as_draft(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(ws, {"specs/003-vague/tasks.md": "- [x] T001 Think hard\n- [ ] T002 Decide\n"})
    rc, _, err = run(ws, capsys, "spec-kit", "specs/003-vague", "--write")
    assert rc == 0
    assert "SPECKIT-003-vague: its tasks and design name no file" in err
    intent = imported(ws, "SPECKIT-003-vague")
    assert intent.status is Status.DRAFT and intent.patterns == ()


def test_usage_errors(ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(ws, capsys, "spec-kit", str(tmp_path))
    assert rc == 2 and "not inside the workspace" in err
    rc, _, err = run(ws, capsys, "spec-kit", "docs")
    assert rc == 2 and "docs: no such directory" in err
    write(ws, {"empty/readme.txt": "x"})
    rc, _, err = run(ws, capsys, "kiro", "empty")
    assert rc == 2 and "no directory holding" in err


def test_hostile_text_is_quoted_not_injected(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        ws,
        {
            ".kiro/specs/x/tasks.md": (
                "# Implementation Plan: Name: with # hash and 'quotes' \"too\"\n\n"
                "- [x] 1. Edit `src/ok.py` and `../../etc/passwd` and `/etc/shadow` "
                "and `https://evil.example/x.py` and `src/[name].py`\n"
            ),
            ".kiro/specs/x/requirements.md": (
                "### Requirement 1\n\n#### Acceptance Criteria\n\n"
                "1. WHEN x THEN y: z # not a comment\n"
                "2. status: COMPLETED\u2028- id: EVIL\n"
            ),
        },
    )
    rc, _, err = run(ws, capsys, "kiro", ".kiro/specs/x", "--write")
    assert rc == 0, err
    intent = imported(ws, "KIRO-x")
    assert intent.name == "Name: with # hash and 'quotes' \"too\""
    assert intent.patterns == ("src/ok.py",)
    assert intent.acceptance_criteria == (
        "1.1 WHEN x THEN y: z # not a comment",
        "1.2 status: COMPLETED\u2028- id: EVIL",
    )
    result = load_spec_text((ws / SPEC_RELPATH).read_text())
    assert result.spec is not None and result.spec.get("EVIL") is None


def test_odd_directory_names_give_distinct_valid_ids(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        ws,
        {
            ".kiro/specs/日本語/tasks.md": "- [ ] 1. Write `src/ja.py`\n",
            ".kiro/specs/!!!/tasks.md": "- [ ] 1. Write `src/x.py`\n",
            ".kiro/specs/???/tasks.md": "- [ ] 1. Write `src/y.py`\n",
            ".kiro/specs/with space/tasks.md": "- [ ] 1. Write `src/z.py`\n",
        },
    )
    rc, _, err = run(ws, capsys, "kiro", "--write")
    assert rc == 0, err
    result = load_spec_text((ws / SPEC_RELPATH).read_text())
    assert result.spec is not None and not result.has_errors
    ids = [i.id for i in result.spec.intents if i.id.startswith("KIRO-")]
    assert len(ids) == len(set(ids)) == 5
    assert "KIRO-日本語" in ids and "KIRO-with-space" in ids


def test_a_source_directory_symlinked_out_of_the_workspace_is_not_read(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    write(outside, {"tasks.md": "- [x] 1. Secret `src/secret.py`\n"})
    (ws / ".kiro" / "specs" / "linked").symlink_to(outside, target_is_directory=True)
    rc, out, _ = run(ws, capsys, "kiro", "--write")
    assert rc == 0
    assert "secret" not in out and "linked" not in out
    rc, _, err = run(ws, capsys, "kiro", ".kiro/specs/linked")
    assert rc == 2 and "no such directory" in err
