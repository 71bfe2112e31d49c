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

from intent_ls.importers import common
from intent_ls.importers.common import (
    design_paths,
    own_documents,
)
from intent_ls.importers.markdown import Line, prose, read_lines
from intent_ls.importers.model import ProposedIntent, Task

DEFAULT_DIR = ".kiro/specs"
MARKERS = ("requirements.md", "design.md", "tasks.md")
ID_PREFIX = "KIRO"
_TASK_ID = re.compile(r"(\d+(?:\.\d+)*)\.?(?:\s|$)")
_CRITERION = re.compile(r"^\s*(\d+)\.\s+(.+)$")
_REQUIREMENT = re.compile(r"^###\s+Requirement\s+([\w.]+)")
ID_RULE = "a Kiro task starts with its number: '- [ ] 1. Title' or '- [ ] 1.1 Sub-task'"


def read_tasks(root: Path, rel: str) -> list[Task]:
    return common.read_tasks(root, rel, _TASK_ID, ID_RULE)


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
        name = common.titled(lines)
    design: list[str] = []
    if (base / "design.md").is_file():
        rel = f"{directory}/design.md"
        design = design_paths(root, rel, ignore)
        if not (base / "requirements.md").is_file() and not tasks:
            source = rel
    return common.proposed(ID_PREFIX, directory, name, tasks, design, criteria, source)
