"""``intent-ls mcp``: the handshake as MCP tools, for agents that speak MCP over stdio.

Tools (plain text content, no structured output — Claude Code would show a structured
result as ``{"result": …}``):

- ``select_active_intent(intent_id)`` → the ``<intent_context>`` block of the intent;
- ``list_intents()`` → the selectable intents with name, status and scope;
- ``record_lesson(text)`` → appends a lesson under the selected intent in the shared
  brain (``.orchestration/CLAUDE.md``);
- ``stop_background_processes()`` → ends what the workspace's sandboxed commands left
  running (a dev server, a watcher): a later command cannot signal them, since each
  command's signals stay inside its own sandbox
  (:func:`intent_ls.agents.sandbox.liveness.stop`).

A refused selection is a tool error that says why and lists what can be selected.

Whose selection is it? The agent's hooks see this tool call with the agent's own
``session_id`` and store the selection for that session
(:mod:`intent_ls.agents.sessions`); that is what governs the agent's writes. This
process keeps the same selection for ``record_lesson``: one MCP server process serves
one agent session. Editors keep their own selection, so neither overwrites the other.

The official SDK (``mcp``) is imported only here: it costs about half a second, which
the agent pays once per session, never per tool call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents import MCP_SERVER, SELECT_TOOL

INSTRUCTIONS = (
    "intent-ls governs this workspace. Before changing any file, call "
    f"{SELECT_TOOL} with the id of the intent your task belongs to (list_intents shows "
    "them); writes outside its owned_scope are refused."
)


class Handshake:
    """The tools' logic, free of the SDK so that it can be tested directly."""

    def __init__(self, root: Path) -> None:
        from intent_ls.workspace.discover import Workspace

        self.workspace = Workspace(root)
        self.intent_id: str | None = None

    def _spec(self) -> Any:
        result = self.workspace.spec_result()
        if result.spec is None or result.has_errors:
            first = next((p for p in result.problems if p.severity.value == "error"), None)
            why = first.message if first else "no usable spec"
            raise LookupError(f"the intent spec cannot be used: {why}")
        return result.spec

    def listing(self) -> str:
        spec = self._spec()
        lines = []
        for intent in spec.intents:
            if intent.selectable:
                scope = ", ".join(intent.patterns) or "(empty)"
                lines.append(f"{intent.id} | {intent.name} | {intent.status.value} | {scope}")
        if not lines:
            return "No intent is IN_PROGRESS: ask the human to start one before editing."
        return "Selectable intents (id | name | status | owned_scope):\n" + "\n".join(lines)

    def select(self, intent_id: str) -> str:
        from intent_ls.policy.session import SelectionRefused, check_selectable
        from intent_ls.workspace.brain import lessons_for, read_brain
        from intent_ls.workspace.context import context_xml

        spec = self._spec()
        try:
            intent = check_selectable(spec, intent_id.strip())
        except SelectionRefused as exc:
            raise LookupError(f"{exc}\n{self.listing()}") from None
        self.intent_id = intent.id
        lessons = lessons_for(read_brain(self.workspace.root), intent.id)
        return context_xml(intent, lessons=lessons)

    def lesson(self, text: str) -> str:
        from intent_ls.workspace.brain import record_lesson

        if self.intent_id is None:
            raise LookupError(f"select an intent first ({SELECT_TOOL}).\n{self.listing()}")
        try:
            record_lesson(self.workspace.root, self.intent_id, text)
        except ValueError as exc:
            raise LookupError(str(exc)) from None
        return f"Lesson recorded under {self.intent_id} in .orchestration/CLAUDE.md."

    def stop_processes(self) -> str:
        from intent_ls.agents.sandbox.liveness import stop

        count = stop(self.workspace.root)
        if not count:
            return "No process that a sandboxed command of this workspace started is running."
        return (
            f"Stopped {count} process{'es' if count != 1 else ''} that sandboxed commands of "
            "this workspace left running."
        )


def build(root: Path) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    logic = Handshake(root)
    from intent_ls import __version__

    server = MCPServer(
        MCP_SERVER, instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )

    def guarded(call: Any, *args: Any) -> str:
        try:
            return str(call(*args))
        except LookupError as exc:
            raise ToolError(str(exc)) from None

    @server.tool(
        name=SELECT_TOOL,
        description="Select the intent your task belongs to (required before editing "
        "files); returns its <intent_context>: constraints, owned_scope, criteria.",
        structured_output=False,
    )
    def select_active_intent(intent_id: str) -> str:
        return guarded(logic.select, intent_id)

    @server.tool(
        name="list_intents",
        description="List the intents that can be selected, with name, status and scope.",
        structured_output=False,
    )
    def list_intents() -> str:
        return guarded(logic.listing)

    @server.tool(
        name="record_lesson",
        description="Record a lesson learned on the selected intent in the shared brain.",
        structured_output=False,
    )
    def record_lesson(text: str) -> str:
        return guarded(logic.lesson, text)

    @server.tool(
        name="stop_background_processes",
        description="Stop the processes your shell commands left running in this "
        "workspace (dev servers, watchers, anything started with & or setsid): a later "
        "shell command cannot signal them, since each runs in a sandbox of its own.",
        structured_output=False,
    )
    def stop_background_processes() -> str:
        return guarded(logic.stop_processes)

    return server


def serve(root: Path) -> int:
    """Serves until the agent ends the session. An agent that closes its end while an
    answer is still being written (it quit, or gave up on a slow start) has ended the
    session: that is an ordinary end, not a crash to print a traceback for."""
    try:
        build(root).run("stdio")
    except (OSError, BaseExceptionGroup) as error:
        if not _client_gone(error):
            raise
        _discard_stdout()
    return 0


def _client_gone(error: BaseException) -> bool:
    if isinstance(error, BaseExceptionGroup):
        return all(_client_gone(e) for e in error.exceptions)
    return isinstance(error, BrokenPipeError | ConnectionResetError)


def _discard_stdout() -> None:
    """Points stdout at /dev/null so the interpreter's own flush at exit does not fail on
    the closed pipe again (as Python's documentation advises for SIGPIPE)."""
    import os
    import sys

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
