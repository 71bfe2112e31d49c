"""Kiro specs: ``.kiro/specs/<feature>/{requirements.md, design.md, tasks.md}``.

``requirements.md`` has ``### Requirement N`` blocks with a user story and a numbered
``#### Acceptance Criteria`` list (EARS: ``WHEN … THE system SHALL …``); ``tasks.md`` (the
implementation plan) is ``- [ ] 1. Title`` items with ``- [ ] 1.1 …`` sub-tasks, detail
bullets and ``_Requirements: 1.1, 2.3_`` references under them, ``- [-]`` for a task under
way and ``- [ ]*`` for an optional one; ``design.md`` the design.
"""

from __future__ import annotations

import re
from pathlib import Path

from intent_ls.importers.common import (
    design_paths,
    humanize,
    intent_id,
    own_documents,
    scope_of,
    tasks_from,
)
from intent_ls.importers.markdown import Checkbox, Line, headings, prose, read_lines
from intent_ls.importers.model import ProposedIntent, Task, status_of

DEFAULT_DIR = ".kiro/specs"
MARKERS = ("requirements.md", "design.md", "tasks.md")
ID_PREFIX = "KIRO"
_TASK_ID = re.compile(r"(\d+(?:\.\d+)*)\.?(?:\s|$)")
_CRITERION = re.compile(r"^\s*(\d+)\.\s+(.+)$")
_REQUIREMENT = re.compile(r"^###\s+Requirement\s+([\w.]+)")
ID_RULE = "a Kiro task starts with its number: '- [ ] 1. Title' or '- [ ] 1.1 Sub-task'"


def _task_id(box: Checkbox) -> str | None:
    match = _TASK_ID.match(box.text)
    return match.group(1) if match else None


def read_tasks(root: Path, rel: str) -> list[Task]:
    ignore = own_documents(root, rel.rsplit("/", 1)[0])
    return tasks_from(rel, prose(rel, read_lines(root, rel)), ignore, _task_id, ID_RULE)


def _criteria(lines: list[Line]) -> list[str]:
    out: list[str] = []
    requirement: str | None = None
    in_criteria = False
    for line in lines:
        match = _REQUIREMENT.match(line.text)
        if match:
            requirement, in_criteria = match.group(1).rstrip(":"), False
        elif line.text.startswith("#### "):
            in_criteria = "acceptance criteria" in line.text.lower()
        elif line.text.startswith("#"):
            in_criteria = False
        elif in_criteria:
            item = _CRITERION.match(line.text)
            if item:
                number = f"{requirement}.{item.group(1)}" if requirement else item.group(1)
                out.append(f"{number} {item.group(2).strip()}")
    return out


def read_feature(root: Path, directory: str) -> ProposedIntent:
    base = root / directory
    ignore = own_documents(root, directory)
    criteria: list[str] = []
    if (base / "requirements.md").is_file():
        rel = f"{directory}/requirements.md"
        criteria = _criteria(prose(rel, read_lines(root, rel)))
    tasks: list[Task] = []
    name = None
    source = f"{directory}/requirements.md"
    if (base / "tasks.md").is_file():
        source = f"{directory}/tasks.md"
        tasks = read_tasks(root, source)
        lines = prose(source, read_lines(root, source))
        name = next((t.partition(":")[2].strip() for _, t in headings(lines, 1) if ":" in t), None)
    design: list[str] = []
    if (base / "design.md").is_file():
        rel = f"{directory}/design.md"
        design = design_paths(root, rel, ignore)
        if not (base / "requirements.md").is_file() and not tasks:
            source = rel
    return ProposedIntent(
        id=intent_id(ID_PREFIX, directory),
        name=name or humanize(directory),
        status=status_of(tuple(tasks)),
        owned_scope=scope_of([*(t.paths for t in tasks), design]),
        acceptance_criteria=tuple(criteria or (f"{t.id} {t.text}" for t in tasks)),
        source=source,
        tasks=tuple(tasks),
    )
