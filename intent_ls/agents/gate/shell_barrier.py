"""A shell command let through runs under the write barrier (:mod:`intent_ls.agents.barrier`)
where the agent lets a hook rewrite it; elsewhere it is verified after it ran, only."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from intent_ls.agents import registry, rules_pin
from intent_ls.agents.events import Decision, HookEvent, Outcome, ToolCall, ToolKind
from intent_ls.agents.gate.governance import Governance

if TYPE_CHECKING:
    from intent_ls.agents.profile import AgentProfile
    from intent_ls.agents.sandbox.environment import Environment


def barrier_available(root: Path, event: HookEvent) -> bool:
    """Whether this session's commands run in the sandbox (tried once per session)."""
    from intent_ls.agents.sandbox.availability import works_in

    return works_in(root, event.agent, event.session_id)


def behind_barrier(gov: Governance, event: HookEvent, outcome: Outcome) -> Outcome:
    """A shell command let through runs under the write barrier where it can; for an
    agent that runs its commands through the sandbox's prefix, the paths its plan
    starts from are kept for it first."""
    tool = event.tool
    profile = registry.get(event.agent)
    if tool is None or tool.kind is not ToolKind.SHELL or outcome.decision is Decision.DENY:
        return outcome
    if profile.shell_prefix_var is not None:  # its prefix reads what to mount from here
        from intent_ls.agents.sandbox.availability import refresh_paths

        if barrier_available(gov.root, event):
            refresh_paths(gov.root, event.agent, event.session_id)
        return outcome
    if profile.model_runs_wrapped:  # the command is in its sandboxed form already
        return outcome
    if outcome.decision is not Decision.PASS or not profile.rewrites_commands or not tool.command:
        return outcome
    pinned = rules_pin.unchanged(gov.root, event, profile, _project(gov.root, profile))
    if not barrier_available(gov.root, event) or (pinned and _own_rule(gov, profile, tool)):
        return _as_judged(outcome, tool.command, tool.arguments)
    import sys

    from intent_ls.agents import barrier

    wrapped = barrier.wrap(
        sys.executable, gov.root, tool.command, profile.jobs_var, event.session_id
    )
    rewritten = outcome._replace(updated_input={**tool.arguments, "command": wrapped})
    if not pinned:
        return _rules_changed(gov, profile, tool, rewritten)
    return rewritten


def sandbox_first(gov: Governance, event: HookEvent, tool: ToolCall) -> Outcome | None:
    """For an agent that ignores a rewrite and has no shell prefix (the profile's
    ``model_runs_wrapped``): a command not in exactly the sandboxed form this hook would
    have written is refused before it is judged (so that it uses no approval), naming
    that form; in that form the command inside it is judged. None where it may go on
    (in that form, or no sandbox can be made here: then it runs as written and is
    verified after it ran)."""
    import sys

    from intent_ls.agents import barrier

    profile = registry.get(event.agent)
    if not profile.model_runs_wrapped or not tool.command:
        return None
    wrapped = barrier.wrap(sys.executable, gov.root, tool.command, profile.jobs_var)
    if tool.arguments.get("command") == wrapped or not barrier_available(gov.root, event):
        return None
    from intent_ls.agents.gate.messages import deny

    return deny(
        "sandbox-required",
        f"{profile.label} cannot hand this command to intent-ls's sandbox itself, so it "
        "runs only in its sandboxed form (the same command, with everything it starts "
        "confined to the workspace).",
        "run exactly this command instead, unchanged (after its first line comes your "
        f"command as you wrote it):\n{wrapped}",
    )


def _project(root: Path, profile: AgentProfile) -> Path:
    """Where the agent reads its project settings: its project variable, else the root."""
    return Path(profile.project_dir(os.environ) or root)


def _own_rule(gov: Governance, profile: AgentProfile, tool: ToolCall) -> bool:
    """Whether a rule of the agent's own decides the command as written."""
    own = profile.own_rule
    return own is not None and own(tool.command or "", dict(tool.arguments), gov.root) is not None


def _rules_changed(
    gov: Governance, profile: AgentProfile, tool: ToolCall, rewritten: Outcome
) -> Outcome:
    """The agent's rule files changed since the session started
    (:mod:`intent_ls.agents.rules_pin`): none of them allows the command, so one a rule
    would have allowed is asked about, showing the agent's own command (denied with
    that note where the agent cannot ask)."""
    if not _own_rule(gov, profile, tool):
        return rewritten
    return rewritten._replace(
        decision=Decision.ASK, reason=rules_pin.changed_note(profile, tool.command or "")
    )


def _as_judged(outcome: Outcome, command: str, arguments: Mapping[str, object]) -> Outcome:
    """The command left as written. An agent that sent a barrier line of its own was
    judged on the command inside it (:func:`intent_ls.agents.barrier.unwrap`), so that
    command is what runs: its interpreter and root are not intent-ls's to trust."""
    raw = arguments.get("command")
    if not isinstance(raw, str) or raw == command:
        return outcome
    return outcome._replace(updated_input={**arguments, "command": command})


def barrier_note(root: Path, event: HookEvent) -> str:
    """Said once, at session start: whether shell commands run under a write barrier,
    and whether the installation the hooks run changed since it was installed
    (:mod:`intent_ls.agents.install_record`). The agent's rule files are pinned then."""
    from intent_ls.agents.install_record import changed_note

    profile = registry.get(event.agent)
    rules_pin.unchanged(root, event, profile, _project(root, profile))  # pinned here
    return _barrier_text(root, event, profile) + changed_note()


def _barrier_text(root: Path, event: HookEvent, profile: AgentProfile) -> str:
    from intent_ls.agents.sandbox.environment import Kind, decide, probe

    confined = (
        profile.rewrites_commands
        or profile.model_runs_wrapped
        or profile.shell_prefix_var is not None
    )
    env = decide(probe((barrier_available(root, event), ""), with_version=False))
    if not confined or env.kind not in (Kind.SANDBOX, Kind.ROOT_CONTAINER):
        said = env.title if confined else "no sandbox for shell commands here"
        return (
            f"\n\nintent-ls: {said}. What each tool call changes is verified after it ran, "
            "and protected or out-of-scope files are put back."
        )
    own = ""
    if profile.model_runs_wrapped:
        own = (
            f" {profile.label} cannot hand a command to the sandbox itself: a shell command "
            "is refused once, naming its sandboxed form; run that form, unchanged."
        )
    if profile.own_rule is not None:
        own = (
            " A command your own rules allow as written runs as written, and inside "
            "the agent's own sandbox there is no intent-ls sandbox: there, what a "
            "command changes is verified after it ran."
        )
    return (
        f"\n\nintent-ls runs your shell commands in a sandbox ({env.title}): they and "
        "everything they start may write the workspace, a private /tmp and the package "
        "caches only; its protected files (.orchestration/, .intentignore, .gitattributes, "
        f"git's config/hooks/info, the agents' settings) stay read-only.{_ends(env)}{own}"
    )


def _ends(env: Environment) -> str:
    """Said where a PID namespace stands in for Landlock scopes."""
    if not env.pid_namespace:
        return ""
    return " Background processes end with the command that started them here."
