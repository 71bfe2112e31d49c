"""GitHub Actions workflow-command annotations (``::error file=…,line=…::message``).

A step's stdout lines in this shape become annotations on the run and on the pull
request's diff, with no upload step and no code-scanning permission — the lightest way
for ``validate`` and ``check`` to point at lines in CI, as ruff's ``--output-format
github`` does. Values are escaped as the runner unescapes them: ``%``, CR and LF in the
message; additionally ``:`` and ``,`` in properties, which delimit them.
"""

from __future__ import annotations

#: Our severities → the runner's annotation commands.
LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(
    severity: str,
    path: str,
    line: int,
    message: str,
    *,
    title: str,
    col: int | None = None,
    end_line: int | None = None,
    end_col: int | None = None,
) -> str:
    """One annotation line (no newline); positions are 1-based as the runner expects."""
    props = [("file", path), ("line", str(line))]
    if col is not None:
        props.append(("col", str(col)))
    if end_line is not None:
        props.append(("endLine", str(end_line)))
    if end_col is not None:
        props.append(("endColumn", str(end_col)))
    props.append(("title", title))
    joined = ",".join(f"{key}={_escape_property(value)}" for key, value in props)
    return f"::{LEVELS.get(severity, 'error')} {joined}::{_escape_data(message)}"
