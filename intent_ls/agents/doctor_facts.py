"""What ``intent-ls doctor`` checks of an agent, as plain data and functions its folder
provides (``agents/<name>/doctor.py``, ``FACTS``): the ``doctor`` package, a layer above
the agents, drives them. Kept apart from the profile so that the hook, which reads a
profile on every tool call, never builds these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs


@attrs.frozen
class Finding:
    """One thing an agent's own doctor check found, in plain data (the ``doctor``
    package, a layer above the agents, turns it into a report line)."""

    #: ``ok``, ``fail`` or ``note``.
    status: str
    text: str
    fix: str = ""


def file_write(project: Path, rel: str, text: str) -> dict[str, Any]:
    """A write tool's input that names the file and its content."""
    return {"file_path": str(project / rel), "content": text}


def hook_specific_decision(answer: Any) -> tuple[str | None, str]:
    """(decision, reason) of a ``hookSpecificOutput`` answer."""
    if not isinstance(answer, dict):
        return None, ""
    out = answer.get("hookSpecificOutput")
    out = out if isinstance(out, dict) else {}
    return out.get("permissionDecision"), str(out.get("permissionDecisionReason", ""))


def common_payload(
    event: str, session: str, project: Path, tool: str, args: dict[str, Any]
) -> dict[str, Any]:
    """A before-tool payload in the shape most agents share."""
    return {
        "session_id": session,
        "transcript_path": "",
        "cwd": str(project),
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": args,
    }


def no_notes(entry: dict[str, Any], where: str) -> list[Finding]:
    return []


@attrs.frozen
class DoctorFacts:
    """What ``intent-ls doctor`` checks of an agent set up in a workspace."""

    #: Hook event -> the tools its matcher must reach for intent-ls to see them.
    tools: Mapping[str, tuple[str, ...]]
    #: The tools doctor's synthetic payloads name: a write and a shell command.
    write_tool: str
    shell_tool: str
    #: The answer its hook gives a destructive command (an agent that cannot ask denies).
    held: str
    #: Files whose presence shows the agent is used in this workspace (the first one is
    #: its folder, as doctor names it).
    used_here: tuple[str, ...]
    #: The agent-side switches intent-ls cannot flip, as (name, what to check).
    trust: tuple[tuple[str, str], ...]
    #: ``(hook entry, project, session) -> (shell line or exec argv, environment)``:
    #: how the agent runs a hook's command line.
    invocation: Callable[[dict[str, Any], Path, str], tuple[str | list[str], dict[str, str]]]
    #: ``(root, settings, hook entry) -> [Finding]``: settings that switch its hooks off.
    switches: Callable[[Path, dict[str, Any], Any], list[Finding]]
    #: ``(root, settings) -> (where, the intent-ls server entry, an error text or None)``.
    mcp_entry: Callable[[Path, dict[str, Any]], tuple[str, Any]]
    #: ``(project, relative path, text) -> tool input`` of the probe's write.
    write_args: Callable[[Path, str, str], dict[str, Any]] = attrs.field(factory=lambda: file_write)
    #: ``hook answer -> (decision, reason)``.
    decision_of: Callable[[Any], tuple[str | None, str]] = attrs.field(
        factory=lambda: hook_specific_decision
    )
    #: ``(entry, where) -> [Finding]``: what else of the server entry deserves a note.
    mcp_notes: Callable[[dict[str, Any], str], list[Finding]] = attrs.field(
        factory=lambda: no_notes
    )
    #: Variables the agent expands in its MCP server's command (to the workspace), and
    #: variables it sets to the project folder for the server.
    mcp_expands: tuple[str, ...] = ()
    mcp_env: tuple[str, ...] = ()
    #: ``(event, session, project, tool, tool input) -> payload`` of a synthetic call.
    payload: Callable[[str, str, Path, str, dict[str, Any]], dict[str, Any]] = attrs.field(
        factory=lambda: common_payload
    )
    #: Fields its before-tool payload carries beyond those.
    payload_extra: Mapping[str, str] = attrs.field(factory=dict)
    #: ``root -> settings with "hooks", or why there are none``: where the agent's hooks
    #: are not entries of a JSON settings file (a plugin, the entries it amounts to);
    #: None: its ``hooks_file`` read as JSON.
    settings: Callable[[Path], dict[str, Any] | str] | None = None
    #: Whether its hook matchers are regular expressions only (no ``A|B`` exact list),
    #: and an invalid one is compared as a literal.
    regex_matchers: bool = False
