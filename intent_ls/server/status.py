"""The ``intent/status`` notification: what a status bar shows for one workspace folder.

Sent whenever any field may have changed (selection, spec reload, approvals, the turn
state after an edit). The payload is documented in docs/server.md; clients key on
``folder`` in multi-root windows.
"""

from __future__ import annotations

from typing import Any

from intent_ls.server.folders import Folder
from intent_ls.spec.model import Severity

METHOD = "intent/status"


def payload(folder: Folder) -> dict[str, Any]:
    active = folder.active
    problems = folder.spec_result.problems
    errors = sum(p.severity is Severity.ERROR for p in problems)
    if not folder.governed:
        message = "intent-ls: no .orchestration/active_intents.yaml (not governed)"
    elif active is None:
        message = "intent-ls: no active intent"
    else:
        message = f"intent-ls: {active.id} {active.name}"
    if folder.spec_stale:
        message += " (spec has errors: using the last valid version)"
    return {
        "folder": folder.uri,
        "governed": folder.governed,
        "state": folder.session.state.value,
        "sessionId": folder.session.id,
        "intent": (
            {"id": active.id, "name": active.name, "status": active.status.value}
            if active
            else None
        ),
        "spec": {
            "uri": folder.spec_uri,
            "valid": folder.governed and errors == 0,
            "stale": folder.spec_stale,
            "errors": errors,
            "warnings": len(problems) - errors,
            "intents": len(folder.spec.intents),
        },
        "approvals": len(folder.approvals),
        "message": message,
    }
