"""GitHub spec-kit: ``specs/<feature>/{spec.md, plan.md, tasks.md}``.

``tasks.md`` (``/speckit.tasks``) is a checklist of ``- [ ] T001 [P] [US1] Create … in
src/models/user.py``: a ``T`` number, optional ``[P]`` (parallel) and story labels, and
the exact file paths; ``/speckit.implement`` ticks items ``[X]``. ``spec.md`` states the
functional requirements and success criteria as ``- **FR-001**: System MUST …`` and
``- **SC-001**: …`` bullets; ``plan.md`` is the design.
"""

from __future__ import annotations

import re
from pathlib import Path

from intent_ls.importers import common
from intent_ls.importers.common import (
    design_paths,
    own_documents,
)
from intent_ls.importers.markdown import prose, read_lines
from intent_ls.importers.model import ProposedIntent, Task

DEFAULT_DIR = "specs"
MARKERS = ("spec.md", "plan.md", "tasks.md")
ID_PREFIX = "SPECKIT"
#: ``T001``, also written ``**T001**`` or ``[T001]``, with a letter for an inserted task
#: (``T004a``); the template's ``TXXX`` (a number not given yet) matches without group 1.
_TASK_ID = re.compile(r"(?:\*\*|\[)?(?:(T\d+[a-z]?)|TX+)\b")
_REQUIREMENT = re.compile(r"^\s*[-*]\s+\*\*((?:FR|NFR|SC)-\d+)\*\*:?\s*(.+)$")
ID_RULE = "a spec-kit task starts with its id: '- [ ] T001 Description with file path'"


def read_tasks(root: Path, rel: str) -> list[Task]:
    return common.read_tasks(root, rel, _TASK_ID, ID_RULE)


def read_feature(root: Path, directory: str) -> ProposedIntent:
    base = root / directory
    ignore = own_documents(root, directory)
    name = None
    criteria: list[str] = []
    if (base / "spec.md").is_file():
        rel = f"{directory}/spec.md"
        lines = prose(rel, read_lines(root, rel))
        name = common.titled(lines)
        for line in lines:
            match = _REQUIREMENT.match(line.text)
            if match:
                criteria.append(f"{match.group(1)}: {match.group(2).strip()}")
    tasks: list[Task] = []
    source = f"{directory}/spec.md"
    if (base / "tasks.md").is_file():
        source = f"{directory}/tasks.md"
        tasks = read_tasks(root, source)
        if name is None:
            lines = prose(source, read_lines(root, source))
            name = common.titled(lines)
    design: list[str] = []
    if (base / "plan.md").is_file():
        rel = f"{directory}/plan.md"
        design = design_paths(root, rel, ignore)
        if not (base / "spec.md").is_file() and not tasks:
            source = rel
    return common.proposed(ID_PREFIX, directory, name, tasks, design, criteria, source)
