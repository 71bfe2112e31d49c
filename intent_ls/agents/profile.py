"""What an agent is, as one value: everything ``hook``, ``hooks install``, the write
barrier, the protected paths, the approve-verb guard and ``doctor`` need to know about
one coding agent, so that none of them branches on its name.

An agent's folder (``agents/<name>/``) holds its adapter, its install, its rule files
and its doctor checks, and a ``profile.py`` with its :class:`AgentProfile`; the
registry (:mod:`intent_ls.agents.registry`) lists the folders. The profile names its
code with :func:`lazy`, so that reading a profile (``intent-ls hook`` reads one on every
tool call, the protected paths read them all) imports none of it.

Reading one imports no attrs either (the events are named in annotations only): the
sandbox's launcher reads the profiles before every shell command.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from intent_ls.agents.doctor_facts import DoctorFacts
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


def lazy_value(module: str, attribute: str) -> Callable[[], Any]:
    """A value of a module (a constant), got by calling, imported when first asked for."""
    return lambda: getattr(importlib.import_module(module), attribute)


class AgentProfile(NamedTuple):
    """One coding agent. See docs/architecture.md for how a new agent gets one.

    An immutable record, as attrs' frozen classes are elsewhere; a ``NamedTuple`` because
    the hook creates this class on every tool call, and attrs' generated methods for
    its ~30 fields cost ~1.8 ms of CPU there against ~0.45 ms (measured, one process
    per run). The module does without ``from __future__ import annotations`` for the
    same reason: ``NamedTuple`` compiles a string annotation into a ``ForwardRef``
    each (another ~2 ms)."""

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
    #: ``() -> DoctorFacts``: what doctor checks of it (:func:`lazy_value`; the hook
    #: never loads it).
    doctor_facts: Callable[[], Any]
    #: The payload's field that names the hook event.
    event_key: str = "hook_event_name"
    #: Variables naming the project folder in the hook's environment, first found wins.
    project_vars: tuple[str, ...] = ()
    #: Whether an ``ask`` reaches a human (else what needs one is denied, with the step).
    ask_supported: bool = True
    #: Whether a before-tool answer may rewrite a shell command (to run it under the
    #: write barrier); elsewhere shell commands are verified after they ran, only.
    rewrites_commands: bool = False
    #: Whether, the agent ignoring a rewrite and having no shell prefix, a shell command
    #: let through is denied with its sandboxed form for the model to run instead (what
    #: the model runs in that form passes as it is: the command inside it is judged).
    model_runs_wrapped: bool = False
    #: The variable, set in its project settings' ``env``, naming a prefix it runs
    #: every shell command through: the sandbox's, with no rewrite of the command.
    shell_prefix_var: str | None = None
    #: The variable holding the session id in its shell commands' environment.
    session_var: str | None = None
    #: The variable naming the file its shell wrapper lists background jobs into.
    jobs_var: str | None = None
    #: ``(command, arguments, root) -> rule or None``: a rule of the agent's own that
    #: rewriting the command would defeat (it matches its rules on the rewritten text),
    #: so the command is left as written.
    own_rule: Callable[[str, dict[str, Any], Path], str | None] | None = None
    #: ``(project) -> paths``: every file ``own_rule`` reads (absent
    #: ones too), pinned at the session's start (:mod:`intent_ls.agents.rules_pin`).
    rule_files: Callable[[Path], list[Path]] | None = None
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
    #: More fields on each hook entry ``hooks install`` writes (fail-closed switches).
    hook_fields: Mapping[str, Any] = {}
    #: Other agents whose project hooks it runs too (it reads their settings files), and
    #: the variable it sets in every hook's environment: their hook, run by it, answers
    #: as this agent (:mod:`intent_ls.agents.hosted`).
    runs_hooks_of: tuple[str, ...] = ()
    hook_marker: str | None = None

    @property
    def doctor(self) -> DoctorFacts:
        return self.doctor_facts()

    def project_dir(self, environ: Mapping[str, str]) -> str | None:
        """The project folder the agent names in the hook's environment."""
        return next((environ[v] for v in self.project_vars if environ.get(v)), None)
