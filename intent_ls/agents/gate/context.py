"""What the model is told at session start and on each prompt: the selected intent's
context (with its lessons), or the selectable intents and how to select one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents import MCP_SERVER, SELECT_TOOL
from intent_ls.agents.gate.governance import Governance, session_of
from intent_ls.spec.model import Spec

#: Selectable intents listed in a context message before "call list_intents".
LISTED = 25


def session_context(gov: Governance, state: dict[str, Any]) -> str:
    from intent_ls.workspace.brain import lessons_for, read_brain
    from intent_ls.workspace.context import context_xml

    if gov.broken:
        return (
            f"intent-ls governs this workspace, but {gov.broken}. Every file write is refused "
            "until a human fixes the spec."
        )
    session = session_of(gov, state)
    intent = gov.spec.get(session.intent_id) if session.intent_id else None
    if intent is not None:
        lessons = lessons_for(read_brain(gov.root), intent.id)
        return (
            f"intent-ls: this session works on intent {intent.id}. Only files in its "
            "owned_scope may be changed; .orchestration/ is never written by agents.\n"
            + context_xml(intent, lessons=lessons)
        )
    return selection_help(gov.spec)


def clone_setup_note(root: Path) -> str:
    """Once per agent session (like ``serve`` and ``check``): a clone without the merge
    driver produces ledger conflicts on the next merge, and only a human can run ``init``."""
    from intent_ls.workspace.setup import clone_setup_problems

    problems = clone_setup_problems(root)
    if not problems:
        return ""
    return "\n\nintent-ls setup warning (tell the human): " + "; ".join(problems) + "."


def selection_help(spec: Spec) -> str:
    selectable = [i for i in spec.intents if i.selectable]
    lines = [
        "intent-ls governs this workspace: before changing any file, call the "
        f"{SELECT_TOOL} tool (MCP server {MCP_SERVER}) with the id of the intent your task "
        "belongs to. Writes outside the selected intent's owned_scope are refused.",
    ]
    if not selectable:
        lines.append("No intent is IN_PROGRESS: ask the human to start one before editing.")
    else:
        lines.append("Selectable intents:")
        for intent in selectable[:LISTED]:
            scope = ", ".join(intent.patterns[:5])
            lines.append(f"- {intent.id}: {intent.name} (owns {scope})")
        if len(selectable) > LISTED:
            lines.append(f"… and {len(selectable) - LISTED} more: call list_intents.")
    return "\n".join(lines)
