"""The typed model every front door shares: intents, the spec, and positioned problems.

Positions are 0-based lines and 0-based columns counted in Unicode code points (what the
YAML parser reports); front doors convert to their own units (LSP UTF-16/UTF-8, CLI 1-based).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import NamedTuple

from intent_ls.common.equality import compared_without


class Status(enum.StrEnum):
    DRAFT = "DRAFT"
    IN_PROGRESS = "IN_PROGRESS"
    BLOCKED = "BLOCKED"
    COMPLETED = "COMPLETED"
    ARCHIVED = "ARCHIVED"


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Position(NamedTuple):
    line: int
    column: int


class Span(NamedTuple):
    start: Position
    end: Position

    @classmethod
    def point(cls, line: int = 0, column: int = 0) -> Span:
        return cls(Position(line, column), Position(line, column))


class Problem(NamedTuple):
    """A spec problem. ``code`` is a stable identifier tools and editors key on."""

    code: str
    severity: Severity
    message: str
    span: Span
    related: tuple[tuple[str, Span], ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "line": self.span.start.line + 1,
            "column": self.span.start.column + 1,
            "end_line": self.span.end.line + 1,
            "end_column": self.span.end.column + 1,
        }


class Glob(NamedTuple):
    """One ``owned_scope`` entry and where it is written."""

    pattern: str
    span: Span


class Intent(NamedTuple):
    id: str
    name: str
    status: Status
    owned_scope: tuple[Glob, ...]
    constraints: tuple[str, ...] = ()
    acceptance_criteria: tuple[str, ...] = ()
    related_files: tuple[str, ...] = ()
    recent_history: tuple[str, ...] = ()
    created_at: str | None = None
    updated_at: str | None = None
    #: The spec-kit / OpenSpec / Kiro file an imported intent came from.
    source: str | None = None
    #: Where the intent's mapping starts and where its ``owned_scope`` value sits, so
    #: editors can point at it and code actions can edit it in place.
    span: Span = Span.point()
    scope_span: Span | None = None

    __eq__, __ne__, __hash__ = compared_without("span", "scope_span")

    @property
    def patterns(self) -> tuple[str, ...]:
        return tuple(g.pattern for g in self.owned_scope)

    @property
    def selectable(self) -> bool:
        return self.status is Status.IN_PROGRESS

    @property
    def label(self) -> str:
        """How every door names an intent to a human: ``id (name, status)``."""
        return f"{self.id} ({self.name}, {self.status.value})"


def labels(intents: Iterable[Intent]) -> str:
    """Intents named for a human, as every door lists owners: ``A (x, IN_PROGRESS), B …``."""
    return ", ".join(i.label for i in intents)


class RepoPolicy(NamedTuple):
    """The ``policy:`` section: the tunables of the rules as the repository sets them.

    They live with the spec so that every front door (editor, agent hooks, ``record``,
    ``check``) reads the same numbers from the repository; None means "not set", and the
    policy layer fills in its defaults.
    """

    #: More net deleted lines than this in one change is a destructive edit.
    max_deleted_lines: int | None = None
    #: Gitignore-style globs whose every edit needs a human; replaces the built-in list.
    protected_paths: tuple[str, ...] | None = None
    #: Root-anchored globs no agent tool call may change (put back byte for byte, like
    #: ``.orchestration/``), added to the agents' built-in protected set.
    agent_protected_paths: tuple[str, ...] = ()
    #: Trees outside the workspace an agent's shell command may write besides the
    #: development caches: absolute, or ``~/`` for the home folder.
    agent_writable_paths: tuple[str, ...] = ()
    #: How many tasks (processes and threads) one sandboxed command may run at once;
    #: None: the sandbox's default.
    agent_max_tasks: int | None = None


class Spec(NamedTuple):
    """A loaded ``active_intents.yaml``: the intents, the repository's policy settings,
    plus the legacy selection if any."""

    intents: tuple[Intent, ...] = ()
    legacy: bool = False
    active_intent_id: str | None = None
    policy: RepoPolicy = RepoPolicy()

    def get(self, intent_id: str) -> Intent | None:
        for intent in self.intents:
            if intent.id == intent_id:
                return intent
        return None

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(i.id for i in self.intents)
