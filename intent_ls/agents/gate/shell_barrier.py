"""A shell command let through runs under the write barrier (:mod:`intent_ls.agents.barrier`)
where the agent lets a hook rewrite it; elsewhere it is verified after it ran, only."""

from __future__ import annotations

import os

import attrs

from intent_ls.agents.events import Decision, HookEvent, Outcome, ToolKind
from intent_ls.agents.gate.governance import Governance

#: Agents whose before-tool answer may rewrite a shell command (checked in the real CLI:
#: Claude Code's ``updatedInput``, honoured with no decision, so that its own permission
#: rules still apply). Elsewhere shell commands are verified after they ran, only.
REWRITES_COMMANDS = frozenset({"claude-code"})


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
    import sys

    from intent_ls.agents import barrier

    if not barrier.available():
        return outcome
    cwd_out = os.path.join(
        os.environ.get("TMPDIR", "/tmp"), f"intent-ls-cwd-{os.getpid()}-{os.urandom(4).hex()}"
    )
    wrapped = barrier.wrap(sys.executable, gov.root, tool.command, cwd_out)
    return attrs.evolve(outcome, updated_input={**tool.arguments, "command": wrapped})


def barrier_note(agent: str) -> str:
    """Said once, at session start: whether shell commands run under a write barrier."""
    from intent_ls.agents import barrier

    if agent in REWRITES_COMMANDS and barrier.available():
        return (
            "\n\nintent-ls runs your shell commands under a write barrier (read-only mounts): "
            "its protected files (.orchestration/, .intentignore, .gitattributes, git's "
            "config/hooks/info, the agents' settings) cannot be changed by them."
        )
    return (
        "\n\nintent-ls: no write barrier for shell commands here; what each tool call "
        "changes is verified after it ran, and protected or out-of-scope files are put back."
    )
