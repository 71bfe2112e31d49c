"""The shape of ``active_intents.yaml``: every key, what it holds, and whether it is required.

Both the validator (``intent_ls.spec.load``) and the JSON Schema (``intent_ls.spec.schema``)
read their keys and value kinds from these tables, so the two cannot drift apart: a
field added here is known to the validator and offered by YAML editors at once.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

#: The fewest tasks ``policy.agentMaxTasks`` may allow a command: fewer, and ordinary
#: commands cannot start their pipelines.
MIN_TASKS = 32


class Kind(enum.Enum):
    #: A string; when the field is required it must not be blank.
    TEXT = "text"
    #: One of :class:`intent_ls.spec.model.Status`.
    STATUS = "status"
    #: A list of gitignore globs (``owned_scope``).
    GLOBS = "globs"
    #: A list of strings (null for none).
    TEXT_LIST = "text list"
    #: A string or a YAML date (``2025-01-31``), kept as written.
    TIMESTAMP = "timestamp"
    #: The list of intents.
    INTENTS = "intents"
    #: The legacy ``scope: {paths: [...]}`` mapping.
    LEGACY_SCOPE = "legacy scope"
    #: A whole number, zero or more.
    COUNT = "count"
    #: The ``policy:`` mapping (:data:`POLICY_FIELDS`).
    POLICY = "policy"
    #: Free-form: accepted and not interpreted.
    ANY = "any"


class Field(NamedTuple):
    name: str
    kind: Kind
    description: str
    required: bool = False
    #: Whether an empty value (null) is accepted.
    nullable: bool = False
    #: For a legacy spelling: the field it stands for when that one is absent.
    legacy_of: str | None = None
    #: For a count: the least value it takes.
    minimum: int = 0


TOP_FIELDS: tuple[Field, ...] = (
    Field("active_intents", Kind.INTENTS, "The intents of this workspace.", required=True),
    Field(
        "intents",
        Kind.INTENTS,
        "Legacy name of 'active_intents' (ignored when both are present).",
        legacy_of="active_intents",
    ),
    Field(
        "active_intent_id",
        Kind.TEXT,
        "Legacy selection of the active intent; editors select it per session instead.",
        nullable=True,
    ),
    Field("version", Kind.ANY, "Free-form version of the spec."),
    Field(
        "policy",
        Kind.POLICY,
        "The repository's settings for the rules, read by the editor, the agent hooks, "
        "'intent-ls record' and 'intent-ls check' alike; editor settings can only make the "
        "editor stricter.",
        nullable=True,
    ),
)

#: Keys of ``policy:``, spelled like the editor's ``intentLs.destructive`` settings.
POLICY_FIELDS: tuple[Field, ...] = (
    Field(
        "maxDeletedLines",
        Kind.COUNT,
        "More net deleted lines than this in one change is a destructive edit (default 20).",
        nullable=True,
    ),
    Field(
        "protectedPaths",
        Kind.GLOBS,
        "gitignore-style globs of files whose every edit needs a human's approval; replaces "
        "the built-in list (migrations, lock files, CI definitions). Null: the built-in list.",
        nullable=True,
    ),
    Field(
        "agentProtectedPaths",
        Kind.GLOBS,
        "Globs of files no agent tool call may change, added to the agents' built-in set "
        "(.orchestration/, .intentignore, git's config and hooks, the agents' settings): "
        "a change through any tool is refused or put back byte for byte. Each starts with "
        "a literal directory or file, anchored at the workspace root (e.g. 'deploy/**', "
        "'config/*.env', '/Makefile'); '!' lines re-include.",
        nullable=True,
    ),
    Field(
        "agentWritablePaths",
        Kind.TEXT_LIST,
        "Folders outside the workspace an agent's shell commands may write, besides the "
        "development caches (~/.cache, ~/.npm, ~/.cargo/registry, …) and a private /tmp: "
        "absolute paths, or '~/' for the home folder (e.g. '~/.rustup'). Everything else "
        "outside the workspace stays read-only in the agents' sandbox.",
        nullable=True,
    ),
    Field(
        "agentMaxTasks",
        Kind.COUNT,
        "How many processes and threads one agent shell command may run at once in the "
        "sandbox (default 4096, at least 32): a fork bomb stops there.",
        nullable=True,
        minimum=MIN_TASKS,
    ),
)

INTENT_FIELDS: tuple[Field, ...] = (
    Field("id", Kind.TEXT, "Stable identifier, e.g. INT-001.", required=True),
    Field("name", Kind.TEXT, "Short human-readable name.", required=True),
    Field(
        "status",
        Kind.STATUS,
        "Lifecycle state; only IN_PROGRESS intents can be selected (missing: IN_PROGRESS).",
    ),
    Field(
        "owned_scope",
        Kind.GLOBS,
        "gitignore-style globs, relative to the workspace root, of the files this intent "
        "may change.",
        required=True,
    ),
    Field("constraints", Kind.TEXT_LIST, "Rules an agent working on this intent must follow."),
    Field("acceptance_criteria", Kind.TEXT_LIST, "What must hold for the intent to be complete."),
    Field("related_files", Kind.TEXT_LIST, "Files to read for context (not owned)."),
    Field("recent_history", Kind.TEXT_LIST, "Notes on recent work, written by humans."),
    Field("created_at", Kind.TIMESTAMP, "When the intent was created (ISO 8601)."),
    Field("updated_at", Kind.TIMESTAMP, "When the intent last changed (ISO 8601)."),
    Field("description", Kind.ANY, "Free-form description."),
    Field(
        "source",
        Kind.TEXT,
        "Where the intent was imported from (`intent-ls import`): the workspace-relative "
        "spec-kit, OpenSpec or Kiro file whose tasks it tracks.",
    ),
)

LEGACY_INTENT_FIELDS: tuple[Field, ...] = (
    Field("intent_id", Kind.TEXT, "Legacy name of 'id'.", legacy_of="id"),
    Field("title", Kind.TEXT, "Legacy name of 'name'.", legacy_of="name"),
    Field(
        "scope",
        Kind.LEGACY_SCOPE,
        "Legacy form of 'owned_scope': a mapping with a 'paths' list.",
        legacy_of="owned_scope",
    ),
)


def names(fields: tuple[Field, ...]) -> tuple[str, ...]:
    return tuple(f.name for f in fields)


def of_kind(fields: tuple[Field, ...], kind: Kind) -> tuple[str, ...]:
    return tuple(f.name for f in fields if f.kind is kind)
