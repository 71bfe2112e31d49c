"""The intent spec: valid, or its errors as ``intent-ls validate`` gives them."""

from __future__ import annotations

from pathlib import Path

from intent_ls.doctor.report import Check, fail, ok
from intent_ls.spec.load import SPEC_NOT_FOUND, SPEC_RELPATH
from intent_ls.spec.model import Severity
from intent_ls.workspace.discover import Workspace

AREA = "spec"
FIX = "fix it in " + SPEC_RELPATH + " (`intent-ls validate` lists every problem)."


def check_spec(root: Path) -> list[Check]:
    result = Workspace(root).spec_result()
    errors = sorted(
        (p for p in result.problems if p.severity is Severity.ERROR),
        key=lambda p: (p.span.start, p.code),
    )
    if any(p.code == SPEC_NOT_FOUND for p in errors):
        return [fail(AREA, "file", f"no {SPEC_RELPATH}.", "run `intent-ls init`.")]
    if errors:
        return [
            fail(
                AREA,
                "valid",
                f"{SPEC_RELPATH}:{p.span.start.line + 1}:{p.span.start.column + 1}: "
                f"error: {p.code}: {p.message}",
                FIX,
            )
            for p in errors
        ]
    count = len(result.spec.intents) if result.spec else 0
    others = len(result.problems)
    extra = f", {others} warning(s) (`intent-ls validate`)" if others else ""
    return [ok(AREA, "valid", f"{SPEC_RELPATH}: {count} intent(s){extra}.")]
