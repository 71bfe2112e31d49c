"""Checks on single ``owned_scope`` globs, shared by the spec validator and the scope engine.

pathspec accepts nearly any string, so the mistakes people actually make (a glob that
climbs out of the workspace, an unclosed bracket, an absolute path pasted from a shell)
are caught here, before they silently match nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

INVALID_GLOB = "invalid-glob"
GLOB_ESCAPES = "glob-escapes-workspace"

#: First segments that only ever appear in absolute paths, never in a repository.
_ABSOLUTE_ROOTS = frozenset(
    {"home", "usr", "etc", "tmp", "var", "opt", "root", "Users", "private", "mnt", "proc"}
)
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


class GlobIssue(NamedTuple):
    code: str
    message: str


@lru_cache(maxsize=8192)
def check_glob(pattern: str) -> GlobIssue | None:
    """Returns what is wrong with ``pattern``, or None when it is a usable gitignore glob."""
    body = pattern[1:] if pattern.startswith("!") else pattern
    if not body.strip():
        return GlobIssue(INVALID_GLOB, "empty glob matches nothing")
    if "\0" in body or "\n" in body or "\r" in body:
        return GlobIssue(INVALID_GLOB, "glob contains a control character")
    if body != body.strip():
        return GlobIssue(
            INVALID_GLOB, "glob has leading or trailing whitespace (gitignore keeps it literally)"
        )
    if _trailing_backslash(body):
        return GlobIssue(INVALID_GLOB, "glob ends with an unescaped backslash")
    if _unclosed_bracket(body):
        return GlobIssue(INVALID_GLOB, "unclosed '[' character class")
    escape = _escape_reason(body)
    if escape:
        return GlobIssue(GLOB_ESCAPES, escape)
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([pattern])
    except Exception as exc:  # pathspec raises several types for malformed patterns
        return GlobIssue(INVALID_GLOB, f"not a valid gitignore glob: {exc}")
    return None


_WILD = re.compile(r"[*?\[\\]")


def literal_base(pattern: str) -> str | None:
    """The workspace-relative file or directory a root-anchored glob lies under: its
    leading segments up to the first with a wildcard (``deploy/**/*.key`` -> ``deploy``,
    ``/Makefile`` -> ``Makefile``). None when the glob can match anywhere (no slash but a
    trailing one, or a wildcard in its first segment): nothing bounds where it looks."""
    body = pattern[1:] if pattern.startswith("!") else pattern
    body = body.rstrip("/")
    if not (body.startswith("/") or "/" in body):
        return None
    literal: list[str] = []
    for segment in body.lstrip("/").split("/"):
        if not segment or _WILD.search(segment):
            break
        literal.append(segment)
    return "/".join(literal) or None


def _escape_reason(body: str) -> str | None:
    if body.startswith("~"):
        return "home-relative path; owned_scope globs are relative to the workspace root"
    if _DRIVE.match(body) or body.startswith(("//", "\\\\")):
        return "absolute path; owned_scope globs are relative to the workspace root"
    segments = [s for s in re.split(r"[\\/]", body) if s]
    if ".." in segments:
        return "'..' climbs out of the workspace; owned_scope globs stay inside it"
    if body.startswith("/") and segments and segments[0] in _ABSOLUTE_ROOTS:
        return (
            "looks like an absolute path; a leading '/' only anchors a glob to the workspace root"
        )
    return None


def _trailing_backslash(body: str) -> bool:
    run = len(body) - len(body.rstrip("\\"))
    return run % 2 == 1


def _unclosed_bracket(body: str) -> bool:
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            j = i + 1
            if j < len(body) and body[j] in "!^":
                j += 1
            if j < len(body) and body[j] == "]":
                j += 1
            while j < len(body) and body[j] != "]":
                j += 1
            if j >= len(body):
                return True
            i = j
        i += 1
    return False
