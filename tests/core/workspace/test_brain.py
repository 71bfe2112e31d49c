"""Lessons in the shared brain (.orchestration/CLAUDE.md)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from intent_ls.workspace.brain import add_lesson, lessons_for, record_lesson

DAY = dt.date(2026, 11, 21)


def test_lessons_are_filed_under_their_intent_in_order() -> None:
    text = add_lesson("", "INT-1", "first", DAY)
    text = add_lesson(text, "INT-2", "other", DAY)
    text = add_lesson(text, "INT-1", "second\nline", DAY)
    assert lessons_for(text, "INT-1") == ["2026-11-21: first", "2026-11-21: second line"]
    assert lessons_for(text, "INT-2") == ["2026-11-21: other"]
    assert text.index("second line") < text.index("## Lessons: INT-2")


def test_hand_written_prose_is_kept() -> None:
    text = "# Notes\n\nKeep this.\n"
    assert add_lesson(text, "X", "y", DAY).startswith("# Notes\n\nKeep this.\n")


def test_empty_lesson_is_refused() -> None:
    with pytest.raises(ValueError):
        add_lesson("", "X", "  ", DAY)


def test_record_lesson_writes_the_file(tmp_path: Path) -> None:
    record_lesson(tmp_path, "INT-1", "write tests first", DAY)
    text = (tmp_path / ".orchestration/CLAUDE.md").read_text()
    assert "- 2026-11-21: write tests first" in text


def test_lessons_are_data_bounded_and_free_of_hidden_characters() -> None:
    import datetime as dt

    import pytest

    from intent_ls.workspace.brain import MAX_LESSON_CHARS, MAX_LESSONS_SHOWN

    day = dt.date(2026, 11, 26)
    with pytest.raises(ValueError, match="at most"):
        add_lesson("", "INT-1", "x" * (MAX_LESSON_CHARS + 1), day)
    for hidden in ("\x1b[2J", "\u202eevil", "a\x00b", "\u2066x\u2069"):
        with pytest.raises(ValueError, match="control or bidirectional"):
            add_lesson("", "INT-1", hidden, day)
    planted = "## Lessons: INT-1\n\n" + "".join(
        f"- 2026-11-26: lesson {i} \u202e\n" for i in range(MAX_LESSONS_SHOWN + 5)
    )
    shown = lessons_for(planted, "INT-1")
    assert len(shown) == MAX_LESSONS_SHOWN and shown[-1].endswith("\\u202e")
    assert shown[0].startswith("2026-11-26: lesson 5 ")
