"""The one event model every agent's hook payload is translated into.

Claude Code, Codex CLI and Gemini CLI each send their own JSON (``../docs/agents.md``);
a thin adapter per agent turns it into a :class:`HookEvent` and turns the gate's
:class:`Outcome` back into the JSON that agent understands. Everything between
(selection, scope, staleness, the classifier, the ledger) sees only these types.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from intent_ls.common.equality import compared_without


def text_of(value: object) -> str | None:
    """A payload field that should be a string, or None when it is anything else: hook
    input comes from another program and is checked, never trusted."""
    return value if isinstance(value, str) else None


class Phase(enum.StrEnum):
    SESSION_START = "session-start"
    PROMPT = "prompt"
    BEFORE_TOOL = "before-tool"
    AFTER_TOOL = "after-tool"
    #: Gemini's BeforeModel: the only place it shows the model id.
    BEFORE_MODEL = "before-model"
    OTHER = "other"


class ToolKind(enum.StrEnum):
    WRITE = "write"
    SHELL = "shell"
    READ = "read"
    #: One of intent-ls's own MCP tools (``select_active_intent`` …).
    OWN_MCP = "own-mcp"
    OTHER = "other"


class FileChange(NamedTuple):
    """One file a tool call writes. ``new_text`` is the whole proposed content when the
    adapter can compute it (None: unknown, judged on the path alone); ``delete`` and
    ``move_to`` describe file operations (Codex patches)."""

    path: str
    new_text: str | None = None
    #: For an edit (a string replacement, a patch hunk): the new text computed from the
    #: text on disk (None when it does not apply). The gate calls it just before judging.
    transform: Callable[[str | None], str | None] | None = None
    delete: bool = False
    move_to: str | None = None

    __eq__, __ne__, __hash__ = compared_without("transform")


class ToolCall(NamedTuple):
    kind: ToolKind
    name: str
    files: tuple[FileChange, ...] = ()
    command: str | None = None
    #: For OWN_MCP: the tool's own name and arguments.
    mcp_tool: str | None = None
    arguments: Mapping[str, object] = MappingProxyType({})
    #: The tool's result as the agent reported it (after-tool only).
    failed: bool = False
    #: The shell tool's own working directory argument (Gemini ``dir_path``/``directory``,
    #: Codex ``workdir``), relative to the event's ``cwd``.
    workdir: str | None = None
    #: Why the tool's input cannot be read as the tool it names (a missing or non-string
    #: path): the call is refused rather than judged on a guess.
    problem: str | None = None


class HookEvent(NamedTuple):
    agent: str
    phase: Phase
    session_id: str
    cwd: str
    model: str | None = None
    tool: ToolCall | None = None
    #: Where the agent keeps its transcript (Claude: the model id is read from it).
    transcript_path: str | None = None
    #: The agent's permission mode where it says (Claude Code's ``permission_mode``):
    #: whether an ``ask`` reaches a human.
    permission_mode: str | None = None
    #: The agent's id for this tool call (``tool_use_id``), pairing its before- and
    #: after-tool events; None where the agent sends none.
    tool_id: str | None = None


class Decision(enum.StrEnum):
    ALLOW = "allow"
    #: No opinion: the agent's own permission rules apply.
    PASS = "pass"
    ASK = "ask"
    DENY = "deny"


class Outcome(NamedTuple):
    decision: Decision = Decision.PASS
    reason: str = ""
    #: Text the agent adds to the model's context (session start, prompt, after a tool).
    context: str = ""
    #: The tool's input rewritten (Claude Code's and Codex's ``updatedInput``, Gemini
    #: CLI's ``tool_input``): a shell command run under the write barrier (:mod:`.barrier`).
    updated_input: dict[str, object] | None = None
