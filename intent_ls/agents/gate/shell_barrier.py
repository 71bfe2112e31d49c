"""A shell command let through runs under the write barrier (:mod:`intent_ls.agents.barrier`)
where the agent lets a hook rewrite it; elsewhere it is verified after it ran, only."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from intent_ls.agents import registry, rules_pin, sessions
from intent_ls.agents.events import Decision, HookEvent, Outcome, ToolCall, ToolKind
from intent_ls.agents.gate.governance import Governance

if TYPE_CHECKING:
    from intent_ls.agents.profile import AgentProfile

#: Session-state key: whether this session's shell commands can run under the barrier.
#: Trying costs a fork, so it is tried once per session (at its start, or its first
#: command) and kept where agents cannot change it: the state file is a protected path.
AVAILABLE = "barrier"


def barrier_available(root: Path, event: HookEvent) -> bool:
    known = sessions.read_state(root, event.agent, event.session_id).get(AVAILABLE)
    if isinstance(known, bool):
        return known
    from intent_ls.agents import barrier

    found = barrier.available()
    with sessions.updating(root, event.agent, event.session_id) as state:
        state[AVAILABLE] = found
    return found


def behind_barrier(gov: Governance, event: HookEvent, outcome: Outcome) -> Outcome:
    """A shell command let through runs under the write barrier where it can."""
    tool = event.tool
    profile = registry.get(event.agent)
    if (
        tool is None
        or tool.kind is not ToolKind.SHELL
        or outcome.decision is not Decision.PASS
        or not profile.rewrites_commands
        or not tool.command
    ):
        return outcome
    pinned = rules_pin.unchanged(gov.root, event, profile, _project(gov.root, profile))
    if not barrier_available(gov.root, event) or (pinned and _own_rule(gov, profile, tool)):
        return _as_judged(outcome, tool.command, tool.arguments)
    import sys

    from intent_ls.agents import barrier

    cwd_out = None  # a fresh shell per command, unless the agent's shell persists
    if profile.shell_persists:  # a ``cd`` carries over
        cwd_out = os.path.join(
            os.environ.get("TMPDIR", "/tmp"), f"intent-ls-cwd-{os.getpid()}-{os.urandom(4).hex()}"
        )
    wrapped = barrier.wrap(sys.executable, gov.root, tool.command, cwd_out, profile.jobs_var)
    rewritten = attrs.evolve(outcome, updated_input={**tool.arguments, "command": wrapped})
    if not pinned:
        return _rules_changed(gov, profile, tool, rewritten)
    if profile.user_rules is None:
        return rewritten
    return _as_the_user_rules(gov, profile, tool.command, rewritten)


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
    that note where the agent cannot ask); a deny still denies."""
    command = tool.command or ""
    found = profile.user_rules(_project(gov.root, profile), command) if profile.user_rules else None
    if found is not None and found[0] == "deny":
        return _as_the_user_rules(gov, profile, command, rewritten)
    if found is None and not _own_rule(gov, profile, tool):
        return rewritten
    return attrs.evolve(
        rewritten, decision=Decision.ASK, reason=rules_pin.changed_note(profile, command)
    )


def _as_judged(outcome: Outcome, command: str, arguments: dict[str, object]) -> Outcome:
    """The command left as written. An agent that sent a barrier line of its own was
    judged on the command inside it (:func:`intent_ls.agents.barrier.unwrap`), so that
    command is what runs: its interpreter and root are not intent-ls's to trust."""
    raw = arguments.get("command")
    if not isinstance(raw, str) or raw == command:
        return outcome
    return attrs.evolve(outcome, updated_input={**arguments, "command": command})


def _as_the_user_rules(
    gov: Governance, profile: AgentProfile, command: str, rewritten: Outcome
) -> Outcome:
    """An agent that matches its permission rules on the rewritten command has the
    user's own rules applied here to the command as written (its profile's
    ``user_rules``)."""
    assert profile.user_rules is not None
    found = profile.user_rules(_project(gov.root, profile), command)
    if found is None:
        return rewritten
    kind, rule = found
    if kind == "deny":
        return Outcome(
            Decision.DENY,
            f"[intent-ls] Your {profile.label} settings deny this command ({rule}), so it is "
            "refused. Next step: do it another way, or ask the human.",
        )
    if kind == "ask":
        reason = (
            f"Your {profile.label} settings ask before this command ({rule}). intent-ls runs it "
            f"under its write barrier: {command}"
        )
        return attrs.evolve(rewritten, decision=Decision.ASK, reason=reason)
    reason = (
        f"allowed by your {profile.label} settings ({rule}); run under intent-ls's write barrier"
    )
    return attrs.evolve(rewritten, decision=Decision.ALLOW, reason=reason)


def barrier_note(root: Path, event: HookEvent) -> str:
    """Said once, at session start: whether shell commands run under a write barrier,
    and whether the installation the hooks run changed since it was installed
    (:mod:`intent_ls.agents.install_record`). The agent's rule files are pinned then."""
    from intent_ls.agents.install_record import changed_note

    profile = registry.get(event.agent)
    rules_pin.unchanged(root, event, profile, _project(root, profile))  # pinned here
    return _barrier_text(root, event, profile) + changed_note()


def _barrier_text(root: Path, event: HookEvent, profile: AgentProfile) -> str:
    if profile.rewrites_commands and barrier_available(root, event):
        own = ""
        if profile.own_rule is not None:
            own = (
                " A command your own rules allow as written runs as written, and inside "
                "the agent's own sandbox there is no barrier: there, what a command "
                "changes is verified after it ran."
            )
        return (
            "\n\nintent-ls runs your shell commands under a write barrier (read-only mounts): "
            "its protected files (.orchestration/, .intentignore, .gitattributes, git's "
            f"config/hooks/info, the agents' settings) cannot be changed by them.{own}"
        )
    return (
        "\n\nintent-ls: no write barrier for shell commands here; what each tool call "
        "changes is verified after it ran, and protected or out-of-scope files are put back."
    )
