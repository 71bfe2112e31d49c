"""What a check found, and the two ways ``doctor`` prints it."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

import attrs


class Status(enum.StrEnum):
    OK = "ok"
    FAIL = "fail"
    #: Not a failure: something doctor cannot see (an agent's trust switch) stated as
    #: what to check by hand, or a check that does not apply here.
    NOTE = "note"


@attrs.frozen
class Check:
    #: Whose check it is: ``spec``, ``ledger``, an agent (``claude-code``), ``editors``.
    area: str
    #: What was checked, in a few words (``hooks``, ``fires on a write``).
    name: str
    status: Status
    detail: str
    next_step: str = ""
    #: How long the check's probe took, when it ran one.
    ms: float | None = None
    #: What the check found as structured data, for the JSON report (``facts``).
    data: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "area": self.area,
            "check": self.name,
            "status": self.status.value,
            "detail": self.detail,
            "next_step": self.next_step,
        }
        if self.ms is not None:
            out["ms"] = round(self.ms, 1)
        if self.data is not None:
            out["facts"] = dict(self.data)
        return out


def ok(
    area: str,
    name: str,
    detail: str,
    ms: float | None = None,
    data: Mapping[str, Any] | None = None,
) -> Check:
    return Check(area, name, Status.OK, detail, ms=ms, data=data)


def fail(area: str, name: str, detail: str, next_step: str, ms: float | None = None) -> Check:
    return Check(area, name, Status.FAIL, detail, next_step, ms)


def note(
    area: str,
    name: str,
    detail: str,
    next_step: str = "",
    data: Mapping[str, Any] | None = None,
) -> Check:
    return Check(area, name, Status.NOTE, detail, next_step, data=data)


def passed(checks: Sequence[Check]) -> bool:
    return not any(c.status is Status.FAIL for c in checks)


_LABEL = {Status.OK: "ok  ", Status.FAIL: "FAIL", Status.NOTE: "note"}


def text_line(check: Check) -> str:
    """One line per check; control characters from settings files are shown escaped, so
    a hostile settings value cannot rewrite the terminal."""
    line = f"{_LABEL[check.status]}  {check.area} {check.name}: {check.detail}"
    if check.next_step:
        line += f" Next step: {check.next_step}"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in line)


def as_json(root: str, checks: Sequence[Check]) -> dict[str, Any]:
    return {
        "workspace": root,
        "passed": passed(checks),
        "checks": [c.to_dict() for c in checks],
    }
