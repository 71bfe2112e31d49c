"""What an importer proposes, and how it says a source file is malformed."""

from __future__ import annotations

import attrs

from intent_ls.spec.model import Status


class SourceError(Exception):
    """A source file the importer cannot read as its tool's format: where, and why."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message


@attrs.frozen
class Task:
    """One checklist item: ``- [ ]`` open, ``- [x]`` done, ``- [-]`` (Kiro) started."""

    id: str
    text: str
    done: bool
    started: bool
    #: Kiro's ``- [ ]*``: not needed for the feature to be complete.
    optional: bool
    line: int
    #: Workspace-relative paths the task names (files or directories ending in ``/``).
    paths: tuple[str, ...] = ()


@attrs.frozen
class ProposedIntent:
    id: str
    name: str
    status: Status
    owned_scope: tuple[str, ...]
    acceptance_criteria: tuple[str, ...]
    #: The workspace-relative file the intent links back to (its task list when it has
    #: one: that is where "done" is written).
    source: str
    tasks: tuple[Task, ...] = ()


def status_of(tasks: tuple[Task, ...]) -> Status:
    """Every required task done: COMPLETED; some done or started: IN_PROGRESS; none (or
    no list): DRAFT."""
    required = [t for t in tasks if not t.optional]
    if required and all(t.done for t in required):
        return Status.COMPLETED
    if any(t.done or t.started for t in tasks):
        return Status.IN_PROGRESS
    return Status.DRAFT
