"""What an agent is, as one value: everything ``hook``, ``hooks install``, the write
barrier, the protected paths, the approve-verb guard and ``doctor`` need to know about
one coding agent, so that none of them branches on its name.

An agent's folder (``agents/<name>/``) holds its adapter, its install, its rule files
and its doctor checks, and a ``profile.py`` with its :class:`AgentProfile`; the
registry (:mod:`intent_ls.agents.registry`) lists the folders. The profile names its
code with :func:`lazy`, so that reading a profile (``intent-ls hook`` reads one on every
tool call, the protected paths read them all) imports none of it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from intent_ls.agents.events import HookEvent, Outcome


class Lazy:
    """A function named by its module and name, imported when first called."""

    __slots__ = ("attribute", "module", "resolved")

    def __init__(self, module: str, attribute: str) -> None:
        self.module = module
        self.attribute = attribute
        self.resolved: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.resolved is None:
            self.resolved = getattr(importlib.import_module(self.module), self.attribute)
        return self.resolved(*args, **kwargs)

    def __repr__(self) -> str:
        return f"lazy({self.module}:{self.attribute})"


def lazy(module: str, attribute: str) -> Callable[..., Any]:
    return Lazy(module, attribute)


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
    #: Whether its hook matchers are regular expressions only (no ``A|B`` exact list),
    #: and an invalid one is compared as a literal.
    regex_matchers: bool = False


@attrs.frozen
class AgentProfile:
    """One coding agent. See docs/architecture.md for how a new agent gets one."""

    #: As ``intent-ls hook`` and ``hooks install`` name it (a CLI contract).
    name: str
    #: As people name it, in messages.
    label: str
    #: ``payload -> HookEvent``.
    parse: Callable[[dict[str, Any]], HookEvent]
    #: ``(event name, outcome) -> the answer in the agent's own shape``.
    render: Callable[[str, Outcome], dict[str, Any]]
    #: The hook event that gates a tool (a refusal there is a deny, elsewhere a note).
    gate_event: str
    #: ``(root, uninstall) -> changes``: ``intent-ls hooks install NAME``.
    install: Callable[[Path, bool], list[str]]
    #: The settings file its hooks are installed in, relative to the workspace.
    hooks_file: str
    #: Hook event -> the tool matcher ``hooks install`` writes (None: every tool).
    events: Mapping[str, str | None]
    #: A hook entry's ``timeout`` in seconds per unit.
    timeout_unit: float
    doctor: DoctorFacts
    #: The payload's field that names the hook event.
    event_key: str = "hook_event_name"
    #: Variables naming the project folder in the hook's environment, first found wins.
    project_vars: tuple[str, ...] = ()
    #: Whether an ``ask`` reaches a human (else what needs one is denied, with the step).
    ask_supported: bool = True
    #: Whether a before-tool answer may rewrite a shell command (to run it under the
    #: write barrier); elsewhere shell commands are verified after they ran, only.
    rewrites_commands: bool = False
    #: Whether its shell persists between calls (a ``cd`` carries over).
    shell_persists: bool = False
    #: The variable naming the file its shell wrapper lists background jobs into.
    jobs_var: str | None = None
    #: ``(command, arguments, root) -> rule or None``: a rule of the agent's own that
    #: rewriting the command would defeat (it matches its rules on the rewritten text),
    #: so the command is left as written.
    own_rule: Callable[[str, dict[str, Any], Path], str | None] | None = None
    #: ``(project, command) -> (deny|ask|allow, rule) or None``: the user's permission
    #: rules, applied by the hook to the command as written, where the agent would match
    #: them on the rewritten one only.
    user_rules: Callable[[Path, str], tuple[str, str] | None] | None = None
    #: Permission modes (the payload's ``permission_mode``) in which an ``ask`` may be
    #: answered without a human (skipped, or settled by a classifier): a write there
    #: never counts as approved.
    unattended_modes: frozenset[str] = frozenset()
    #: A variable holding the model id in the hook's environment.
    model_env: str | None = None
    #: Variables the agent sets for the commands its shell tool runs and a human's
    #: terminal does not have (the approve-verb guard's evidence).
    env_markers: tuple[str, ...] = ()
    #: Workspace paths no agent may change: whole trees, single files, and
    #: ``folder/pattern`` globs matched on names in that folder.
    protected_trees: tuple[str, ...] = ()
    protected_files: tuple[str, ...] = ()
    protected_globs: tuple[str, ...] = ()
    #: The protected paths as a refusal names them.
    protected_shown: tuple[str, ...] = ()
    #: Files under the home folder no agent may change (its user settings).
    home_files: tuple[str, ...] = ()
    #: Variables that name a project folder inside a hook's command line.
    command_vars: tuple[str, ...] = ()

    def project_dir(self, environ: Mapping[str, str]) -> str | None:
        """The project folder the agent names in the hook's environment."""
        return next((environ[v] for v in self.project_vars if environ.get(v)), None)
