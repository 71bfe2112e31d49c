"""The gate's entry point: one hook event in, one :class:`~intent_ls.agents.events.Outcome`
out, whichever agent sent it (the adapters translate both ways).

A verified tool call (a write, a shell command, a tool intent-ls does not know) is
bracketed by its effects: the before-tool event keeps the workspace's state once the
call is let through, and the after-tool event first puts protected paths back — before
the spec or any cache is read, so they are judged as they were — then judges what else
changed (:mod:`.effects`). What each event decides is :mod:`.decide`'s, imported only
once the call's ``git status`` is running: the after-tool event waits for that process,
which then runs while the rest of the gate is imported.
"""

from __future__ import annotations

import os
from pathlib import Path

from intent_ls.agents.events import HookEvent, Outcome, Phase, ToolKind

#: Tool calls whose effects on disk are verified after they ran (:mod:`.effects`).
VERIFIED = frozenset({ToolKind.WRITE, ToolKind.SHELL, ToolKind.OTHER})


def answer(event: HookEvent, root: Path, *, ask_supported: bool) -> Outcome:
    from intent_ls.agents.effects import verify

    verified = event.tool is not None and event.tool.kind in VERIFIED
    real = Path(os.path.realpath(root))
    restored = None
    status = None
    if verified and event.phase is Phase.AFTER_TOOL:
        # Before the spec or any cache is read: they are judged as they were.
        restored = verify.restore_protected(real, event)
        if restored is not None:
            from intent_ls.agents.effects.compare import status_after

            status = status_after(restored.snapshot)
    elif verified and event.phase is Phase.BEFORE_TOOL and (real / ".orchestration").is_dir():
        from intent_ls.agents.effects.git import start_status

        status = start_status(real)
    try:
        from intent_ls.agents.gate.decide import decide

        return decide(event, root, ask_supported, verified, restored, status)
    finally:
        if status is not None:
            status.cancel()
