"""The importers read what the tools really write: their templates and their outputs.

The fixtures (:mod:`tests.importers.formats`) are in our own words with the upstream
files' structure; each test names the files it mirrors. ``INTENT_LS_REAL_SPECS`` may name
a directory of real files (a workspace with ``specs/``, ``openspec/changes/`` or
``.kiro/specs/``) to read them as well.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from intent_ls.cli.main import main
from intent_ls.importers.plan import TOOLS, plan_import
from intent_ls.spec.load import SPEC_RELPATH, load_spec_text
from intent_ls.spec.model import Status
from tests.importers import formats
from tests.importers.conftest import write


def import_twice(ws: Path, capsys: pytest.CaptureFixture[str], kind: str, intent_id: str):  # type: ignore[no-untyped-def]
    """Import ``kind`` with --write, check a second run changes nothing, and return the
    intent ``intent_id`` as the spec reads it back."""
    capsys.readouterr()
    rc = main(["import", kind, "--workspace", str(ws), "--write"])
    _, err = capsys.readouterr()
    assert rc == 0, err
    written = (ws / SPEC_RELPATH).read_bytes()
    rc = main(["import", kind, "--workspace", str(ws), "--write"])
    _, err = capsys.readouterr()
    assert rc == 0, err
    assert "nothing to import" in err
    assert (ws / SPEC_RELPATH).read_bytes() == written
    result = load_spec_text(written.decode())
    assert not result.has_errors, result.problems
    assert result.spec is not None
    intent = result.spec.get(intent_id)
    assert intent is not None, result.spec
    return intent


def test_speckit_templates_import_as_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mirrors github/spec-kit ``templates/tasks-template.md`` (06963de5ba4f), with its
    Notes section's ``- [P] …`` and ``- [Story] …`` bullets and the ``TXXX`` ids of its
    polish phase, ``templates/spec-template.md`` (067b2a58dc28: FR-001 repeated under
    each story) and ``templates/plan-template.md`` (000d43e36e66: front matter with
    scripts, a progress checklist, a placeholder tree)."""
    write(
        tmp_path,
        {
            "specs/000-template/tasks.md": formats.SPECKIT_TEMPLATE_TASKS,
            "specs/000-template/spec.md": formats.SPECKIT_TEMPLATE_SPEC,
            "specs/000-template/plan.md": formats.SPECKIT_TEMPLATE_PLAN,
        },
    )
    intent = import_twice(tmp_path, capsys, "spec-kit", "SPECKIT-000-template")
    assert intent.name == "[FEATURE NAME]"
    assert intent.status is Status.DRAFT
    # Placeholders ([name], [entity1]) are no paths, nor is a bare one-word directory
    # (``docs/``: "and/or" looks the same); the polish phase's ``tests/unit/`` is.
    assert intent.patterns == ("tests/unit/",)
    assert intent.acceptance_criteria == (
        'FR-001: System MUST [a capability, e.g., "let users sign up"]',
        "FR-002: System MUST sign users in via [NEEDS CLARIFICATION: which method?]",
    )
    tasks = TOOLS["spec-kit"].read_tasks(tmp_path, "specs/000-template/tasks.md")
    ids = [t.id for t in tasks]
    assert ids[:6] == ["T001", "T002", "T003", "T010", "T012", "T014"]
    assert len(ids) == 9 and all(i.startswith("line ") for i in ids[6:])


def test_speckit_output_with_real_world_spellings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mirrors the ``specs/<feature>/tasks.md`` that ``/speckit.tasks`` wrote in public
    repositories using spec-kit: ``[X]`` ticks, ids as ``**T001**``, ``[T001]`` and
    ``T000a``, extra labels (``[SETUP]``, ``[OWNER SEAM]``) kept as text, detail bullets
    under a task, a layout in a code fence, a link bullet and the Notes section."""
    write(
        tmp_path,
        {
            "specs/002-reading-list/tasks.md": formats.SPECKIT_OUTPUT_TASKS,
            "specs/002-reading-list/data-model.md": "# Data model\n",
        },
    )
    intent = import_twice(tmp_path, capsys, "spec-kit", "SPECKIT-002-reading-list")
    assert intent.name == "Reading list"
    assert intent.status is Status.IN_PROGRESS
    assert intent.patterns == (
        "src/reading/__init__.py",
        "src/reading/models.py",
        "src/reading/store.py",
        "migrations/0002_books.sql",
        "src/reading/api.py",
    )
    tasks = TOOLS["spec-kit"].read_tasks(tmp_path, "specs/002-reading-list/tasks.md")
    assert [t.id for t in tasks] == ["T001", "T002", "T003", "T004", "T005", "T006a", "T007"]
    assert [t.done for t in tasks] == [True, True, True, False, False, False, False]
    by_id = {t.id: t for t in tasks}
    assert "[DB] Write the migration" in by_id["T005"].text
    assert "[OWNER SEAM]" in by_id["T006a"].text


def test_openspec_templates_import_as_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mirrors Fission-AI/OpenSpec ``schemas/spec-driven/templates/proposal.md``
    (602761402fca: a bare ``# Proposal`` title, HTML-comment guidance, placeholder
    capability bullets), ``schemas/spec-driven/templates/spec.md`` (0c582730dc7e: a
    requirement and scenario whose names are HTML comments) and
    ``schemas/workspace-planning/templates/tasks.md`` (9d4a84eca8ad)."""
    write(
        tmp_path,
        {
            "openspec/changes/template-change/proposal.md": formats.OPENSPEC_TEMPLATE_PROPOSAL,
            "openspec/changes/template-change/tasks.md": formats.OPENSPEC_TEMPLATE_TASKS,
            "openspec/changes/template-change/specs/cap/spec.md": formats.OPENSPEC_TEMPLATE_SPEC,
        },
    )
    intent = import_twice(tmp_path, capsys, "openspec", "OPENSPEC-template-change")
    assert intent.name == "Template change"
    assert intent.status is Status.DRAFT
    assert intent.patterns == ()
    assert intent.acceptance_criteria == (
        "1.1 1.1 Agree on the goal and the open questions.",
        "1.2 1.2 List the areas the change touches.",
        "2.1 2.1 Check the planning documents stay the source of truth.",
    )


def test_openspec_output_as_its_own_repository_holds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mirrors Fission-AI/OpenSpec ``openspec/changes/add-change-stacking-awareness/``
    (``tasks.md`` at 08f576565446: untitled numbered sections, backticked paths and
    commands) with a ``.openspec.yaml`` beside it and a spec delta using every section
    kind, RENAMED as FROM/TO bullets."""
    change = "openspec/changes/add-change-stacking"
    write(
        tmp_path,
        {
            f"{change}/.openspec.yaml": "schema: spec-driven\n",
            f"{change}/proposal.md": formats.OPENSPEC_OUTPUT_PROPOSAL,
            f"{change}/tasks.md": formats.OPENSPEC_OUTPUT_TASKS,
            f"{change}/specs/change-stacking/spec.md": formats.OPENSPEC_OUTPUT_SPEC,
        },
    )
    intent = import_twice(tmp_path, capsys, "openspec", "OPENSPEC-add-change-stacking")
    assert intent.name == "Add change stacking"
    assert intent.status is Status.IN_PROGRESS
    assert intent.patterns == ("src/core/schema.ts", "test/core/schema.test.ts", "docs/concepts.md")
    assert intent.acceptance_criteria == (
        "Dependency Metadata: A change SHALL be able to name the changes it depends on.",
        "Validation Errors: Validation SHALL report a dependency cycle as an error.",
    )


def test_kiro_output_as_kiro_writes_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Mirrors the ``.kiro/specs/<feature>/{requirements,design,tasks}.md`` Kiro writes,
    as public repositories hold them (Kiro publishes no templates): a glossary and
    ``### Requirement N: Title`` with ``WHEN …, THE … SHALL`` criteria; a design with a
    mermaid fence and ``**Validates:**`` properties; tasks with Overview/Tasks/Notes
    sections, ``[-]``, nested and optional (``- [ ]*``) sub-tasks, ``[PBT]`` labels, a
    checkpoint task and a link bullet in the notes."""
    feature = ".kiro/specs/weekly-digest"
    write(
        tmp_path,
        {
            f"{feature}/requirements.md": formats.KIRO_OUTPUT_REQUIREMENTS,
            f"{feature}/design.md": formats.KIRO_OUTPUT_DESIGN,
            f"{feature}/tasks.md": formats.KIRO_OUTPUT_TASKS,
        },
    )
    intent = import_twice(tmp_path, capsys, "kiro", "KIRO-weekly-digest")
    assert intent.name == "Weekly digest"
    assert intent.status is Status.IN_PROGRESS
    assert intent.patterns == (
        "src/digest/__init__.py",
        "src/digest/builder.py",
        "tests/digest/test_props.py",
        "src/digest/mailer.py",
    )
    assert intent.acceptance_criteria == (
        "1.1 WHEN a week ends, THE Digest_Service SHALL build a digest of merged changes",
        "1.2 IF no change was merged, THEN THE Digest_Service SHALL send nothing",
        "2.1 WHEN a digest is built, THE Digest_Service SHALL mail it to the team list",
    )
    tasks = TOOLS["kiro"].read_tasks(tmp_path, f"{feature}/tasks.md")
    assert [(t.id, t.optional) for t in tasks] == [
        ("1", False),
        ("2", False),
        ("2.1", False),
        ("2.2", True),
        ("3", False),
        ("4", True),
    ]
    assert tasks[3].text.startswith("2.2 [PBT] Property 1")


def test_a_link_or_label_bullet_is_prose_but_a_task_with_an_odd_box_is_an_error(
    tmp_path: Path,
) -> None:
    """Only a task of the tool's own shape has a status to misread."""
    rel = "specs/003-x/tasks.md"
    write(tmp_path, {rel: "- [link](https://example.com) text\n- [] empty\n- [ab] T001 x\n"})
    assert TOOLS["spec-kit"].read_tasks(tmp_path, rel) == []
    write(tmp_path, {rel: "- [P] T001 Create src/x.py\n"})
    with pytest.raises(Exception, match="unknown checkbox '\\[P\\]'"):
        TOOLS["spec-kit"].read_tasks(tmp_path, rel)


REAL = os.environ.get("INTENT_LS_REAL_SPECS")


@pytest.mark.skipif(
    not REAL,
    reason="INTENT_LS_REAL_SPECS is not set (a directory holding real specs/, "
    "openspec/changes/ or .kiro/specs/ trees); the committed fixtures carry the coverage",
)
@pytest.mark.parametrize("kind", sorted(TOOLS))
def test_real_files_from_a_directory(kind: str) -> None:
    """Every feature of each tool found under ``$INTENT_LS_REAL_SPECS`` imports (a tool
    with no directory there is skipped), and importing the result again adds nothing."""
    root = Path(str(REAL))
    tool = TOOLS[kind]
    if not (root / tool.default_dir).is_dir():
        pytest.skip(f"no {tool.default_dir}/ under {root}")
    plan = plan_import(root, tool, None, "")
    assert plan.added
    again = plan_import(root, tool, None, plan.new_text)
    assert again.added == () and again.new_text == plan.new_text


def test_kiro_style_in_progress_mark(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Kiro-style task lists in public repositories mark a task under way with ``[~]``
    (seen beside ``[x]`` and ``_Requirements:_`` lines): it reads as started, as ``[-]``
    does, not as an unreadable checkbox."""
    feature = ".kiro/specs/weekly-digest"
    tasks_md = formats.KIRO_OUTPUT_TASKS.replace("- [-] 2.", "- [~] 2.")
    assert tasks_md != formats.KIRO_OUTPUT_TASKS
    write(
        tmp_path,
        {
            f"{feature}/requirements.md": formats.KIRO_OUTPUT_REQUIREMENTS,
            f"{feature}/design.md": formats.KIRO_OUTPUT_DESIGN,
            f"{feature}/tasks.md": tasks_md,
        },
    )
    intent = import_twice(tmp_path, capsys, "kiro", "KIRO-weekly-digest")
    assert intent.status is Status.IN_PROGRESS
    started = [t.id for t in TOOLS["kiro"].read_tasks(tmp_path, f"{feature}/tasks.md") if t.started]
    assert started == ["2"]
