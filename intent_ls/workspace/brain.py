"""``.orchestration/CLAUDE.md``, the shared brain: dated lessons filed under each intent.

The file stays readable and hand-editable Markdown: one ``## Lessons: <ID>`` section per
intent, one ``- YYYY-MM-DD: text`` bullet per lesson. New lessons go at the end of their
intent's section so hand-written prose elsewhere in the file is left alone.

Lessons are data, not orders: an agent writes them and every later session reads them,
so one hostile lesson must not become everyone's instruction or break everyone's
selection. A lesson is bounded (:data:`MAX_LESSON_CHARS`), refused when it carries
control or bidirectional-override characters, and read back with any such character a
hand edit put there escaped, at most :data:`MAX_LESSONS_SHOWN` per intent, the newest.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from intent_ls.common.safe_io import read_sidecar, write_atomic

BRAIN_RELPATH = ".orchestration/CLAUDE.md"
_HEADER = "# Shared brain\n\nLessons learned while working on each intent, recorded by intent-ls.\n"
#: A brain is hand-read Markdown; far beyond this it is not one (and is not read whole).
MAX_BRAIN_BYTES = 4 * 1024 * 1024
#: One lesson is a sentence or a short paragraph.
MAX_LESSON_CHARS = 1000
#: Lessons shown to a session per intent (the newest).
MAX_LESSONS_SHOWN = 30
#: Characters that reorder or hide text on screen (Trojan Source) or are not text.
_HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)


def _escaped(text: str) -> str:
    return _HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_BULLET = re.compile(r"^- (\d{4}-\d{2}-\d{2}): (.*)$")


def _section_title(intent_id: str) -> str:
    return f"## Lessons: {intent_id}"


def add_lesson(text: str, intent_id: str, lesson: str, day: dt.date) -> str:
    """Returns the brain text with ``lesson`` appended to ``intent_id``'s section."""
    if _HIDDEN.search(lesson.replace("\n", " ").replace("\t", " ")):
        raise ValueError("a lesson may not contain control or bidirectional-override characters")
    clean = " ".join(lesson.split())
    if not clean:
        raise ValueError("a lesson needs some text")
    if len(clean) > MAX_LESSON_CHARS:
        raise ValueError(
            f"a lesson is at most {MAX_LESSON_CHARS} characters (this one has {len(clean)}): "
            "keep the lesson, not the evidence"
        )
    bullet = f"- {day.isoformat()}: {clean}"
    lines = text.splitlines() if text else _HEADER.splitlines()
    title = _section_title(intent_id)
    try:
        start = lines.index(title)
    except ValueError:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += ["", title, "", bullet]
        return "\n".join(lines) + "\n"
    end = start + 1
    while end < len(lines) and not lines[end].startswith("## "):
        end += 1
    insert_at = end
    while insert_at > start + 1 and not lines[insert_at - 1].strip():
        insert_at -= 1
    lines.insert(insert_at, bullet)
    return "\n".join(lines) + "\n"


def lessons_for(text: str, intent_id: str) -> list[str]:
    lines = text.splitlines()
    try:
        start = lines.index(_section_title(intent_id))
    except ValueError:
        return []
    out = []
    for line in lines[start + 1 :]:
        if line.startswith("## "):
            break
        match = _BULLET.match(line)
        if match:
            out.append(f"{match.group(1)}: {_escaped(match.group(2)[:MAX_LESSON_CHARS])}")
    return out[-MAX_LESSONS_SHOWN:]


def read_brain(root: Path) -> str:
    """The brain's text; "" when there is none yet. A brain that is a symlink, a special
    file or too large raises (:class:`~intent_ls.common.safe_io.UnsafePathError` and friends):
    its bytes must not travel into a lesson or an agent's context."""
    try:
        data = read_sidecar(root / BRAIN_RELPATH, MAX_BRAIN_BYTES, anchor=root)
    except FileNotFoundError:
        return ""
    return data.decode("utf-8", errors="replace")


def record_lesson(root: Path, intent_id: str, lesson: str, day: dt.date | None = None) -> str:
    """Appends a lesson on disk (atomic replace) and returns the new text."""
    new = add_lesson(read_brain(root), intent_id, lesson, day or dt.date.today())
    if len(new.encode("utf-8")) > MAX_BRAIN_BYTES:
        raise ValueError(
            f"{BRAIN_RELPATH} is full ({MAX_BRAIN_BYTES} bytes): ask the human to prune it"
        )
    write_atomic(root / BRAIN_RELPATH, new.encode("utf-8"), anchor=root)
    return new
