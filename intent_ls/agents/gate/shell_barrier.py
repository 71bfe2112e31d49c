"""A shell command let through runs under the write barrier (:mod:`intent_ls.agents.barrier`)
where the agent lets a hook rewrite it; elsewhere it is verified after it ran, only."""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from intent_ls.agents import sessions
from intent_ls.agents.events import Decision, HookEvent, Outcome, ToolKind
from intent_ls.agents.gate.governance import Governance

#: Agents whose before-tool answer may rewrite a shell command (checked in each real CLI:
#: Claude Code's ``updatedInput``, Codex's ``updatedInput`` with ``allow``, Gemini CLI's
#: ``tool_input``). Each matches its own rules on the rewritten command: Claude Code's
#: rules are matched here on the command as written and answered with a decision beside
#: it; a command whose rewrite would defeat a rule of Codex's or Gemini CLI's own is
#: left as written for the agent to judge (:mod:`intent_ls.agents.agent_rules`).
#: Elsewhere shell commands are verified after they ran, only.
REWRITES_COMMANDS = frozenset({"claude-code", "codex", "gemini"})


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
    if (
        tool is None
        or tool.kind is not ToolKind.SHELL
        or outcome.decision is not Decision.PASS
        or event.agent not in REWRITES_COMMANDS
        or not tool.command
    ):
        return outcome
    if (
        not barrier_available(gov.root, event)
        or _agents_own_rule(gov.root, event.agent, tool.command, tool.arguments) is not None
    ):
        return _as_judged(outcome, tool.command, tool.arguments)
    import sys

    from intent_ls.agents import barrier

    cwd_out = jobs_var = None  # Gemini CLI and Codex run each command in a fresh shell
    if event.agent == "claude-code":  # its shell persists: a ``cd`` carries over
        cwd_out = os.path.join(
            os.environ.get("TMPDIR", "/tmp"), f"intent-ls-cwd-{os.getpid()}-{os.urandom(4).hex()}"
        )
    elif event.agent == "gemini":
        from intent_ls.agents.gemini import JOBS_VAR as jobs_var
    wrapped = barrier.wrap(sys.executable, gov.root, tool.command, cwd_out, jobs_var)
    rewritten = attrs.evolve(outcome, updated_input={**tool.arguments, "command": wrapped})
    if event.agent != "claude-code":
        return rewritten
    return _as_the_user_rules(gov, tool.command, rewritten)


def _as_judged(outcome: Outcome, command: str, arguments: dict[str, object]) -> Outcome:
    """The command left as written. An agent that sent a barrier line of its own was
    judged on the command inside it (:func:`intent_ls.agents.barrier.unwrap`), so that
    command is what runs: its interpreter and root are not intent-ls's to trust."""
    raw = arguments.get("command")
    if not isinstance(raw, str) or raw == command:
        return outcome
    return attrs.evolve(outcome, updated_input={**arguments, "command": command})


def _agents_own_rule(
    root: Path, agent: str, command: str, arguments: dict[str, object]
) -> str | None:
    """A rule of Codex's or Gemini CLI's own that rewriting the command would defeat:
    they match their rules on the rewritten command, so such a command is left as
    written."""
    if agent == "codex":
        from intent_ls.agents.agent_rules import codex_rule_for

        return codex_rule_for(command, root)
    if agent == "gemini":
        from intent_ls.agents.agent_rules import gemini_rule_for

        return gemini_rule_for(command, dict(arguments), root)
    return None


def _as_the_user_rules(gov: Governance, command: str, rewritten: Outcome) -> Outcome:
    """Claude Code matches its permission rules on the rewritten command, so the user's
    own rules are applied here to the command as written
    (:mod:`intent_ls.agents.claude_rules`)."""
    from intent_ls.agents import claude_rules

    project = Path(os.environ.get("CLAUDE_PROJECT_DIR") or gov.root)
    found = claude_rules.decide(
        command, claude_rules.bash_rules(claude_rules.settings_files(project))
    )
    if found is None:
        return rewritten
    kind, rule = found
    if kind == "deny":
        return Outcome(
            Decision.DENY,
            f"[intent-ls] Your Claude Code settings deny this command ({rule}), so it is "
            "refused. Next step: do it another way, or ask the human.",
        )
    if kind == "ask":
        reason = (
            f"Your Claude Code settings ask before this command ({rule}). intent-ls runs it "
            f"under its write barrier: {command}"
        )
        return attrs.evolve(rewritten, decision=Decision.ASK, reason=reason)
    reason = f"allowed by your Claude Code settings ({rule}); run under intent-ls's write barrier"
    return attrs.evolve(rewritten, decision=Decision.ALLOW, reason=reason)


def barrier_note(root: Path, event: HookEvent) -> str:
    """Said once, at session start: whether shell commands run under a write barrier."""
    if event.agent in REWRITES_COMMANDS and barrier_available(root, event):
        own = ""
        if event.agent in ("codex", "gemini"):
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
