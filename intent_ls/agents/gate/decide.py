"""What the gate decides for one event (:func:`decide`), once :mod:`.answer` has bracketed
a verified call by its effects: the session's context at its start and on each prompt,
the before-tool judgement of a write or a shell command (then the snapshot the
after-tool event compares with), and the after-tool record and verification.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intent_ls.agents import SELECT_TOOL, registry, sessions
from intent_ls.agents.events import Decision, HookEvent, Outcome, Phase, ToolCall, ToolKind
from intent_ls.agents.gate.governance import (
    Governance,
    command_cwd,
    load_governance,
    read_text,
    rel_path,
)
from intent_ls.agents.gate.messages import deny, effects_told, ledger_noted
from intent_ls.common.hashing import text_hash
from intent_ls.policy.session import SelectionRefused, check_selectable
from intent_ls.policy.verdicts import GOVERNANCE_ERROR
from intent_ls.scope import glob_cache

if TYPE_CHECKING:
    from intent_ls.agents.effects.git import GitStatus
    from intent_ls.agents.effects.verify import Restored


def decide(
    event: HookEvent,
    root: Path,
    ask_supported: bool,
    verified: bool,
    restored: Restored | None,
    status: GitStatus | None,
) -> Outcome:
    """``verified``: the call is bracketed by its effects (:data:`.answer.VERIFIED`);
    ``restored`` and ``status``, what :func:`.answer.answer` found and started."""
    gov = load_governance(root)
    if gov is None:
        told, noted = (restored.told, restored.noted) if restored else ((), ())
        return Outcome(context="\n".join(filter(None, [effects_told(told), ledger_noted(noted)])))
    written: list[str] = []
    if verified and event.tool is not None and event.phase is Phase.AFTER_TOOL:
        # What the tool's input says it writes: recorded as the call's own, and not
        # judged again among its effects.
        kept = restored.declared if restored is not None else None
        written = kept if kept is not None else _declared(gov, event, event.tool)
    outcome = _dispatch(gov, event, ask_supported, written)
    glob_cache.save(gov.root)
    if (
        verified
        and event.tool is not None
        and event.phase is Phase.BEFORE_TOOL
        and outcome.decision is not Decision.DENY
    ):
        from intent_ls.agents.effects import verify
        from intent_ls.agents.gate.shell_barrier import behind_barrier

        # The barrier may note in the session's state whether it can be set up: before
        # the snapshot, which would otherwise see that as the call's change.
        outcome = behind_barrier(gov, event, outcome)
        if outcome.decision is not Decision.DENY:  # the user's own rules may refuse it
            # Under git the after-tool event sees every change: a shell command's writes
            # are judged by their effects there, unless a human was asked about it.
            declared = _declared(gov, event, event.tool, held_only=status is not None)
            protected = gov.spec.policy.agent_protected_paths
            verify.before_call(gov.root, event, status, declared, protected)
    if restored is not None:
        from intent_ls.agents.gate.effects import tell_effects

        outcome = tell_effects(gov, event, restored, outcome, set(written), status)
        outcome = _between_calls(gov, event, restored, outcome)
    return outcome


def _between_calls(
    gov: Governance, event: HookEvent, restored: Restored, outcome: Outcome
) -> Outcome:
    """Protected paths that appeared since the session's last verified call, before this
    one started (:mod:`intent_ls.agents.effects.between`), told; then what exists now is
    the session's settled state, and what git sees is kept while a process of the
    session lives on (:mod:`intent_ls.agents.effects.lingering`)."""
    from intent_ls.agents.effects import between, lingering

    appeared = between.appeared(gov.root, event, restored.snapshot)
    between.settle(gov.root, event)
    lingering.keep(gov.root, event)
    if not appeared:
        return outcome
    told = between.hold(gov.root, event, appeared)
    return outcome._replace(context="\n".join(filter(None, [outcome.context, told])))


def _declared(
    gov: Governance, event: HookEvent, tool: ToolCall, held_only: bool = False
) -> list[str]:
    from intent_ls.agents.gate.record import files_of

    return files_of(gov, event, tool, held_only)


def _dispatch(
    gov: Governance, event: HookEvent, ask_supported: bool, written: list[str]
) -> Outcome:
    tool = event.tool
    if event.phase in (Phase.SESSION_START, Phase.PROMPT):
        from intent_ls.agents.gate.context import clone_setup_note, session_context

        state = sessions.read_state(gov.root, event.agent, event.session_id)
        context = session_context(gov, state)
        if event.phase is Phase.SESSION_START:
            from intent_ls.agents.gate.shell_barrier import barrier_note

            context += clone_setup_note(gov.root) + barrier_note(gov.root, event)
        return Outcome(context=context)
    if event.phase is Phase.BEFORE_MODEL:
        if event.model:
            with sessions.updating(gov.root, event.agent, event.session_id) as state:
                state["model"] = event.model
        return Outcome()
    if tool is None:
        return Outcome()
    if event.phase is Phase.BEFORE_TOOL:
        return _before_tool(gov, event, tool, ask_supported)
    if event.phase is Phase.AFTER_TOOL:
        return _after_tool(gov, event, tool, written)
    return Outcome()


def _unreadable(gov: Governance, event: HookEvent, tool: ToolCall) -> str | None:
    """Why this call cannot be judged at all (then it is refused), or None."""
    if tool.problem:
        return tool.problem
    if not os.path.isabs(event.cwd) or not os.path.isdir(event.cwd):
        return f"the event's working directory {event.cwd!r} is not a directory"
    if tool.workdir is not None and command_cwd(gov, event, tool) is None:
        return f"the tool's working directory {tool.workdir!r} is outside the workspace"
    return None


def _before_tool(gov: Governance, event: HookEvent, tool: ToolCall, ask_supported: bool) -> Outcome:
    if tool.kind is ToolKind.OWN_MCP:
        _selecting(gov, event, tool)
        return Outcome(Decision.ALLOW)
    if tool.kind not in (ToolKind.WRITE, ToolKind.SHELL):
        return Outcome()
    why = _unreadable(gov, event, tool)
    if why is not None:
        return deny(
            GOVERNANCE_ERROR,
            f"intent-ls cannot judge this {tool.name} call: {why}; it is refused.",
            "call the tool with the arguments it documents (a string file_path, a "
            "working directory inside the workspace).",
        )
    if tool.kind is ToolKind.SHELL:
        from intent_ls.agents.gate.shell_barrier import sandbox_first

        first = sandbox_first(gov, event, tool)
        if first is not None:
            return first
    state = sessions.read_state(gov.root, event.agent, event.session_id)
    if tool.kind is ToolKind.SHELL:
        from intent_ls.agents.gate.judge_shell import judge_shell

        cwd = command_cwd(gov, event, tool) or event.cwd
        judged = judge_shell(gov, state, event, tool.command or "", ask_supported, cwd)
    else:
        from intent_ls.agents.gate.judge_write import judge_files

        judged = judge_files(gov, state, event, tool.files, ask_supported)
    if judged.outcome.decision is not Decision.DENY and judged.pending:
        _hold(gov, event, judged)
    return judged.outcome


def _selecting(gov: Governance, event: HookEvent, tool: ToolCall) -> None:
    """intent-ls's own select tool: the session's intent, once the spec allows it (the
    tool itself answers why not, and what can be selected)."""
    if tool.mcp_tool != SELECT_TOOL:
        return
    wanted = tool.arguments.get("intent_id")
    if not isinstance(wanted, str):
        return
    try:
        check_selectable(gov.spec, wanted)
    except SelectionRefused:
        return
    with sessions.updating(gov.root, event.agent, event.session_id) as state:
        state["intent_id"] = wanted


def _hold(gov: Governance, event: HookEvent, judged: Any) -> None:
    """Keeps what the call may write (the content before it, and what a human was asked
    about) for the after-tool event, which records it."""
    unattended = registry.get(event.agent).unattended_modes
    asked = dict(judged.asked) if event.permission_mode not in unattended else {}
    with sessions.updating(gov.root, event.agent, event.session_id) as fresh:
        pending = fresh.setdefault("pending", {})
        for rel, old in judged.pending:
            pending[rel] = {"old": old}
            if rel in asked:
                pending[rel]["asked"] = asked[rel]


def _after_tool(gov: Governance, event: HookEvent, tool: ToolCall, written: list[str]) -> Outcome:
    if tool.kind is ToolKind.READ:
        rels = [r for r in (rel_path(gov, event.cwd, c.path) for c in tool.files) if r]
        if rels:
            with sessions.updating(gov.root, event.agent, event.session_id) as state:
                seen = state.setdefault("seen", {})
                for rel in rels:
                    text = read_text(gov, rel)
                    seen[rel] = None if text is None else text_hash(text)
        return Outcome()
    if tool.kind not in (ToolKind.WRITE, ToolKind.SHELL):
        return Outcome()
    from intent_ls.agents.gate.record import record

    problems = record(gov, event, written)
    if problems:
        return Outcome(
            context="intent-ls could not record this change in the trace ledger: "
            + "; ".join(problems)
            + ". Tell the human: `intent-ls record PATH` records it once the ledger is writable."
        )
    return Outcome()
