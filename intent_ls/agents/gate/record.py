"""The ledger record after a write: one per written file that changed, as the session's
(``ai``, the model id, the selected intent), through :func:`intent_ls.workflow.record_write`,
with the approvals a human gave at the agent's own permission prompt."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from intent_ls.agents import sessions
from intent_ls.agents.events import HookEvent, ToolCall, ToolKind
from intent_ls.agents.gate.governance import (
    Governance,
    command_cwd,
    read_text,
    rel_path,
    session_of,
)
from intent_ls.common.hashing import text_hash
from intent_ls.policy.rules import rule_of


def files_of(
    gov: Governance, event: HookEvent, tool: ToolCall, held_only: bool = False
) -> list[str]:
    """Workspace-relative paths the tool call writes (for the after-tool record). With
    ``held_only`` (the call's effects will be judged: a snapshot is kept), a shell
    command's are only those of a command a human was asked about (held as destructive):
    what any other command did is judged by its effect, as a write tool's would be (an
    emptied, deleted or moved-away file put back until a human approves)."""
    paths = [c.path for c in tool.files] + [c.move_to for c in tool.files if c.move_to]
    cwd = command_cwd(gov, event, tool)
    if tool.kind is ToolKind.SHELL and tool.command and cwd is not None:
        from intent_ls.agents.shell.classify import DESTRUCTIVE, classify_command

        found = classify_command(tool.command, gov.root, cwd)
        if found.klass == DESTRUCTIVE or not held_only:
            paths += [os.path.join(str(gov.root), w) for w in found.writes]
    rels = [rel_path(gov, event.cwd, p) for p in paths]
    return [r for r in rels if r is not None]


def record(gov: Governance, event: HookEvent, rels: Sequence[str]) -> list[str]:
    """Appends one record per written file that changed; returns problems to report.
    The recording machinery is imported only once a file did change: most calls (a
    shell command that writes nothing, a write that left the text as it was) need none."""
    with sessions.updating(gov.root, event.agent, event.session_id) as state:
        changed = _changed(gov, state, rels)
        if not changed:
            return []
        return _append(gov, event, state, changed)


#: (rel, text before the call, text now, what the before-tool event asked a human)
_Changed = tuple[str, str | None, str | None, object]


def _changed(gov: Governance, state: dict[str, Any], rels: Sequence[str]) -> list[_Changed]:
    """The pending writes among ``rels`` whose text changed; each is no longer pending,
    and this session has now seen the file's content."""
    pending: dict[str, Any] = state.setdefault("pending", {})
    seen: dict[str, Any] = state.setdefault("seen", {})
    changed: list[_Changed] = []
    for rel in rels:
        if rel not in pending:
            continue
        entry = pending.pop(rel)
        old = entry.get("old") if isinstance(entry, dict) else None
        asked = entry.get("asked") if isinstance(entry, dict) else None
        new = read_text(gov, rel)
        seen[rel] = None if new is None else text_hash(new)
        if (old or "") != (new or ""):
            changed.append((rel, old, new, asked))
    return changed


def _append(
    gov: Governance, event: HookEvent, state: dict[str, Any], changed: list[_Changed]
) -> list[str]:
    """Records the approvals given at the prompt, then each write; returns problems."""
    from intent_ls import workflow
    from intent_ls.ledger.store import Ledger, ledger_path
    from intent_ls.policy.approvals import Contributor

    problems: list[str] = []
    session = session_of(gov, state)
    model = event.model or model_of(event, state)
    ledger = Ledger(ledger_path(gov.root))
    for rel, old, new, asked in changed:
        try:
            for approval in prompt_approvals(event.agent, rel, asked, new):
                workflow.record_approval(
                    ledger,
                    gov.root,
                    approval,
                    intent_id=session.intent_id,
                    session_id=event.session_id,
                )
        except OSError as exc:  # the change is still recorded, its verdict open
            problems.append(f"{rel}: {exc}")
        try:
            workflow.record_write(
                ledger,
                gov.root,
                rel,
                old or "",
                new or "",
                session=session,
                scope=gov.scope,
                session_id=event.session_id,
                contributor=Contributor("ai", model),
            )
        except OSError as exc:
            problems.append(f"{rel}: {exc}")
    return problems


def prompt_approvals(agent: str, rel: str, asked: object, new: str | None) -> list[Any]:
    """The approvals a human gave at the agent's permission prompt for this write: those
    the before-tool event asked about (:func:`.judge_write.asked_about`), when the file
    now holds exactly the content it asked about — anything else the human never saw.
    Recorded as ``intent-ls approve`` records them (same key, a human approver), with a
    reason saying where the yes came from."""
    from intent_ls.policy.approvals import Approval, Contributor

    if not isinstance(asked, dict) or new is None or asked.get("after") != text_hash(new):
        return []
    found = []
    for item in asked.get("approvals") or ():
        try:
            code = str(item["verdict_code"])
            if not rule_of(code).asks_agent or item["path"] != rel:
                continue
            found.append(
                Approval(
                    code,
                    rel,
                    int(item["start_line"]),
                    int(item["end_line"]),
                    str(item["content_hash"]),
                    Contributor("human"),
                    f"approved at the {agent} permission prompt",
                )
            )
        except (KeyError, TypeError, ValueError):
            continue
    return found


def model_of(event: HookEvent, state: dict[str, Any]) -> str | None:
    """The model id a record names: the agent's environment, its transcript, or what an
    earlier event of the session saw."""
    from intent_ls.agents import registry

    variable = registry.get(event.agent).model_env
    env = os.environ.get(variable) if variable else None
    if env:
        return env
    if event.transcript_path:
        found = _model_from_transcript(event.transcript_path)
        if found:
            return found
    saved = state.get("model")
    return saved if isinstance(saved, str) else None


def _model_from_transcript(path: str) -> str | None:
    """The newest ``message.model`` in a JSONL transcript."""
    from intent_ls.agents.jsonl_tail import newest

    return newest(path, b'"model"', _message_model)


def _message_model(entry: Any) -> str | None:
    message = entry.get("message") if isinstance(entry, dict) else None
    model = message.get("model") if isinstance(message, dict) else None
    usable = isinstance(model, str) and model and not model.startswith("<")
    return model if usable else None
