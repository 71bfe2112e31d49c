"""A shell command before it runs. ``intent-ls approve`` in any spelling is refused (a
human's decision); each file the classifier sees it write is judged like a file write;
what cannot be undone is held for a human. Anything else runs, and is judged by its
effects after it ran (:mod:`intent_ls.agents.effects`)."""

from __future__ import annotations

import os
from typing import Any

from intent_ls.agents.events import Decision, FileChange, HookEvent, Outcome
from intent_ls.agents.gate.governance import Governance, rel_path
from intent_ls.agents.gate.judge_write import Judged, judge_files
from intent_ls.agents.gate.messages import deny
from intent_ls.policy.verdicts import DESTRUCTIVE_COMMAND, PROTECTED_PATH
from intent_ls.scope.index import is_sidecar


def judge_shell(
    gov: Governance,
    state: dict[str, Any],
    event: HookEvent,
    command: str,
    ask_supported: bool,
    cwd: str,
) -> Judged:
    from intent_ls.agents.approval_guard import is_approval_attempt
    from intent_ls.agents.shell.classify import DESTRUCTIVE, classify_command

    if is_approval_attempt(command):
        return Judged(
            deny(
                PROTECTED_PATH,
                "approving a verdict is a human's decision; an agent never runs "
                "`intent-ls approve`, in any spelling, nor a command that could run it "
                "unseen (a program or script only known at run time: `$x …`, "
                '`eval "$(…)"`, `… | sh`).',
                "tell the human what needs approval and why, and let them approve it "
                "(in their terminal or the editor), then retry; otherwise spell the "
                "command out.",
            )
        )
    found = classify_command(command, gov.root, cwd)
    # A directory target (``rm -rf src``) spans intents: the sidecar rule still holds,
    # the rest is the destructive verdict's business, decided by a human.
    writes = [
        FileChange(full)
        for full in (os.path.join(str(gov.root), w) for w in found.writes)
        if _judged_as_file(gov, event, full)
    ]
    judged = judge_files(gov, state, event, writes, ask_supported)
    if judged.outcome.decision is Decision.DENY:
        return judged
    # What a command the classifier cannot follow does is judged by its effects after it
    # ran (:mod:`intent_ls.agents.effects`); only what nothing could put back is held for
    # a human.
    if found.klass == DESTRUCTIVE:
        code = DESTRUCTIVE_COMMAND
        if _command_approved(gov, code, command):
            return Judged(Outcome(), judged.pending)
        why = "; ".join(found.reasons) or found.klass
        if ask_supported:
            step = "wait for the human's answer; if refused, find a non-destructive way."
        else:
            step = (
                f"ask the human to approve it with `intent-ls approve --workspace {gov.root} "
                f"{code} --command {_quote(command)}`, then retry; or find another way."
            )
        unread = any(r.startswith("too deeply nested to read") for r in found.reasons)
        verb = "cannot be read" if unread else "cannot be undone"
        reason = f"[intent-ls] {code}: `{_shown(command)}` {verb} ({why}); a human must decide. "
        return Judged(
            Outcome(
                Decision.ASK if ask_supported else Decision.DENY, reason + "Next step: " + step
            ),
            judged.pending,
        )
    return judged


def _judged_as_file(gov: Governance, event: HookEvent, full: str) -> bool:
    rel = rel_path(gov, event.cwd, full)
    return not os.path.isdir(full) or rel is None or is_sidecar(rel)


#: A command longer than this is shown by its start and length (the human's prompt shows
#: it whole; the approval step for Codex still names it exactly).
SHOWN = 200


def _shown(command: str) -> str:
    if len(command) <= SHOWN:
        return command
    return f"{command[:SHOWN]}… ({len(command):,} characters)"


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _command_approved(gov: Governance, code: str, command: str) -> bool:
    from intent_ls.agents.held_commands import use_approval

    return use_approval(gov.root, code, command)
