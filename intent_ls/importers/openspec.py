"""OpenSpec: ``openspec/changes/<id>/{proposal.md, tasks.md, design.md, specs/…}``.

``tasks.md`` is numbered sections of ``- [ ] 1.1 Do something`` items; ``design.md`` the
technical decisions; ``specs/<capability>/spec.md`` the spec deltas: ``## ADDED|MODIFIED|
REMOVED|RENAMED Requirements`` sections of ``### Requirement: Name`` blocks, each stating
a SHALL and at least one ``#### Scenario:``. Archived changes (``changes/archive/``) are
finished and merged into ``openspec/specs/``: they are not imported.
"""

from __future__ import annotations

import re
from pathlib import Path

from intent_ls.importers import common
from intent_ls.importers.common import (
    design_paths,
    own_documents,
)
from intent_ls.importers.markdown import Line, headings, prose, read_lines
from intent_ls.importers.model import ProposedIntent, SourceError, Task

DEFAULT_DIR = "openspec/changes"
MARKERS = ("proposal.md", "tasks.md")
SKIP = ("archive",)
ID_PREFIX = "OPENSPEC"
_TASK_ID = re.compile(r"(\d+(?:\.\d+)*)\.?(?:\s|$)")
_DELTA = re.compile(r"^## (ADDED|MODIFIED|REMOVED|RENAMED) Requirements\s*$")


def read_tasks(root: Path, rel: str) -> list[Task]:
    return common.read_tasks(root, rel, _TASK_ID, None)


def _requirements(rel: str, lines: list[Line]) -> list[str]:
    """``Name: SHALL statement`` of each added, modified or renamed requirement; the
    structure ``openspec validate`` insists on is checked on the way."""
    out: list[str] = []
    section: str | None = None
    pending: tuple[Line, str] | None = None
    statement = ""
    scenarios = 0

    def close() -> None:
        if pending is None:
            return
        if section != "REMOVED" and scenarios == 0:
            raise SourceError(
                rel, pending[0].number, f"requirement '{pending[1]}' has no '#### Scenario:'"
            )
        if section in ("ADDED", "MODIFIED", "RENAMED") and pending[1]:
            out.append(f"{pending[1]}: {statement}" if statement else pending[1])

    for line in lines:
        delta = _DELTA.match(line.text)
        if delta or line.text.startswith("## "):
            close()
            pending, statement, scenarios = None, "", 0
            section = delta.group(1) if delta else None
            continue
        if line.text.startswith("### Requirement:"):
            close()
            if section is None:
                raise SourceError(
                    rel,
                    line.number,
                    "a requirement outside a '## ADDED|MODIFIED|REMOVED|RENAMED "
                    "Requirements' section",
                )
            pending = (line, line.text.partition(":")[2].strip())
            statement, scenarios = "", 0
        elif re.match(r"^#{1,3}\s*Scenario:", line.text) or re.match(
            r"^\s*[-*]\s+\*\*Scenario", line.text
        ):
            raise SourceError(
                rel, line.number, "a scenario heading is exactly '#### Scenario: Name'"
            )
        elif line.text.startswith("#### Scenario:"):
            scenarios += 1
        elif pending is not None and not statement and not scenarios and line.text.strip():
            statement = line.text.strip()
    close()
    return out


def read_feature(root: Path, directory: str) -> ProposedIntent:
    base = root / directory
    ignore = own_documents(root, directory)
    name = None
    if (base / "proposal.md").is_file():
        rel = f"{directory}/proposal.md"
        lines = prose(rel, read_lines(root, rel))
        titles = [t for _, t in headings(lines, 1)]
        if titles:
            # ``# Change: Name``; the template's bare ``# Proposal`` names nothing.
            name = re.sub(r"^(Change|Proposal)\s*(:\s*|$)", "", titles[0]).strip() or None
    tasks: list[Task] = []
    source = f"{directory}/proposal.md"
    if (base / "tasks.md").is_file():
        source = f"{directory}/tasks.md"
        tasks = read_tasks(root, source)
    criteria: list[str] = []
    specs = base / "specs"
    if specs.is_dir() and not specs.is_symlink():
        for spec in sorted(specs.rglob("spec.md")):
            rel = spec.relative_to(root).as_posix()
            criteria += _requirements(rel, prose(rel, read_lines(root, rel)))
    design: list[str] = []
    if (base / "design.md").is_file():
        rel = f"{directory}/design.md"
        design = design_paths(root, rel, ignore)
    return common.proposed(ID_PREFIX, directory, name, tasks, design, criteria, source)
