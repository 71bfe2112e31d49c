"""``intent-ls check --enable done-without-change``: ticks the ledger never saw."""

from __future__ import annotations

from tests.check.conftest import GitRepo

SPEC = """\
active_intents:
  - id: SPECKIT-001-albums
    name: Albums
    status: IN_PROGRESS
    owned_scope:
      - src/
    source: specs/001-albums/tasks.md
  - id: KIRO-docs
    name: Docs
    status: COMPLETED
    owned_scope:
      - docs/
    source: .kiro/specs/docs/tasks.md
  - id: INT-HAND
    name: Hand-written, not imported
    status: COMPLETED
    owned_scope:
      - legacy/
"""

TASKS = """\
# Tasks: Albums

- [x] T001 Create the model in src/models/album.py
- [X] T002 Create the service in src/services/album_service.py
- [ ] T003 Create the API in src/api/albums.py
- [x] T004 Review the naming with the team
"""


def setup(repo: GitRepo) -> None:
    repo.write(".orchestration/active_intents.yaml", SPEC)
    repo.write("specs/001-albums/tasks.md", TASKS)
    repo.write(
        ".kiro/specs/docs/tasks.md", "# Implementation Plan\n\n- [x] 1. Write `docs/guide.md`\n"
    )
    repo.commit("spec")
    repo.save("src/models/album.py", "class Album:\n    pass\n", intent="SPECKIT-001-albums")


def test_done_tasks_and_intents_without_a_recorded_change_are_reported(repo: GitRepo) -> None:
    setup(repo)
    found = repo.findings("--enable", "done-without-change")
    rules = [(f["rule"], f["path"], f["start_line"]) for f in found]
    assert rules == [
        ("done-without-change", ".kiro/specs/docs/tasks.md", 3),
        ("done-without-change", ".orchestration/active_intents.yaml", 8),
        ("done-without-change", "specs/001-albums/tasks.md", 4),
    ]
    by_path = {f["path"]: f["message"] for f in found}
    assert "task T002 of SPECKIT-001-albums is marked done" in by_path["specs/001-albums/tasks.md"]
    assert "src/services/album_service.py" in by_path["specs/001-albums/tasks.md"]
    assert "intent KIRO-docs (Docs) is done" in by_path[".orchestration/active_intents.yaml"]


def test_the_rule_is_off_unless_enabled(repo: GitRepo) -> None:
    setup(repo)
    assert repo.findings() == []


def test_a_recorded_change_satisfies_the_task_and_the_intent(repo: GitRepo) -> None:
    setup(repo)
    repo.save(
        "src/services/album_service.py", "def serve():\n    pass\n", intent="SPECKIT-001-albums"
    )
    repo.save("docs/guide.md", "# Guide\n", intent="KIRO-docs")
    assert repo.findings("--enable", "done-without-change") == [
        # KIRO-docs is COMPLETED, so its own save is (rightly) not-in-progress: the
        # optional rule is satisfied, the main rule still speaks.
        f
        for f in repo.findings()
        if f["rule"] == "intent-not-in-progress"
    ]


def test_an_unreadable_task_list_is_said_not_skipped(repo: GitRepo) -> None:
    setup(repo)
    repo.write("specs/001-albums/tasks.md", TASKS.replace("- [ ] T003", "- [?] T003"))
    found = repo.findings("--enable", "done-without-change")
    broken = [
        f
        for f in found
        if f["rule"] == "done-without-change" and f["path"] == "specs/001-albums/tasks.md"
    ]
    assert [f["start_line"] for f in broken] == [5]
    assert broken[0]["message"].startswith("cannot read the task list (unknown checkbox '[?]'")


def test_check_writes_the_report_when_asked(repo: GitRepo) -> None:
    setup(repo)
    out = repo.top / "artefacts" / "report.html"
    rc, _, err = repo.check("--report", str(out))
    assert rc == 0, err
    assert "report:" in err and "report.html" in err
    page = out.read_text()
    assert "SPECKIT-001-albums" in page and 'data-field="records">1<' in page


def test_a_task_list_imported_from_another_directory_is_read_by_the_ids_tool(
    repo: GitRepo,
) -> None:
    spec = SPEC + (
        "  - id: SPECKIT-002-elsewhere\n    name: Elsewhere\n    status: DRAFT\n"
        "    owned_scope:\n      - src/other/\n    source: plans/002-elsewhere/tasks.md\n"
    )
    setup(repo)
    repo.write(".orchestration/active_intents.yaml", spec)
    repo.write("plans/002-elsewhere/tasks.md", "- [x] T001 Write src/other/x.py\n")
    repo.commit("elsewhere")
    found = repo.findings("--enable", "done-without-change")
    assert ("plans/002-elsewhere/tasks.md", 1) in [(f["path"], f["start_line"]) for f in found]
