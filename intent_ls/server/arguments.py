"""The arguments of the ``intent.*`` commands: checked when a call arrives, built when a
code action offers one.

Arguments arrive as raw JSON, so a wrong call gets an InvalidParams response naming the
command and what it expects, never a cattrs structuring trace. Every command takes an
optional trailing document or folder URI to pick the workspace folder in multi-root
windows (:func:`folder`).
"""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types

from intent_ls.server.folders import Folder
from intent_ls.server.guard import Refused, UserError, brief
from intent_ls.server.hub import Hub

#: Longest path or URI accepted (Linux's PATH_MAX).
MAX_PATH = 4096
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
APPROVE = "intent.approve"


def arity(name: str, args: tuple[Any, ...], low: int, high: int, usage: str) -> None:
    if not low <= len(args) <= high:
        raise UserError(f"{name} expects {usage}, got {len(args)} argument(s)")


def string(name: str, value: Any, what: str, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"{name}: {what} must be a non-empty string, got {brief(value)}")
    if "\0" in value:
        raise UserError(f"{name}: {what} contains a NUL character: {brief(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise UserError(
            f"{name}: {what} is not valid Unicode (a lone surrogate): {brief(value)}"
        ) from None
    return value


def path_text(name: str, value: str) -> str:
    """A path or URI that will end up in the spec: no line breaks or other controls
    (the spec would no longer validate, or a glob would hide a second line)."""
    if len(value) > MAX_PATH:
        raise UserError(f"{name}: the path is too long: {brief(value)}")
    if _CONTROL.search(value):
        raise UserError(f"{name}: the path contains a control character: {brief(value)}")
    return value


def lines(name: str, value: Any) -> tuple[int, int]:
    """0-based first and last line of an LSP range given as JSON."""
    try:
        start, end = value["start"]["line"], value["end"]["line"]
        valid = all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (start, end))
    except (TypeError, KeyError):
        valid = False
    if not valid or end < start:
        raise UserError(
            f"{name}: the range must look like {{start: {{line, character}}, end: {{line, "
            f"character}}}}, got {brief(value)}"
        )
    return start, end


def folder(ls: Hub, name: str, hint: Any) -> Folder:
    """The governed folder a command applies to: the one of ``hint`` (a URI) if given,
    else the folder of the document touched last, else the only folder."""
    hint = string(name, hint, "the folder or document URI", optional=True)
    if hint is not None:
        found = ls.folder_for_uri(hint)
        if found is None:
            raise Refused(f"{name}: {brief(hint)} is not inside a workspace folder")
    elif ls.current_folder is not None:
        found = ls.current_folder
    elif len(ls.folders) == 1:
        found = next(iter(ls.folders))
    elif not len(ls.folders):
        raise Refused(f"{name}: no workspace folder is open")
    else:
        raise UserError(
            f"{name}: several workspace folders are open; pass a document or folder URI "
            "as the last argument"
        )
    ls.refresh(found)
    if not found.governed:
        raise Refused(
            f"{name}: {found.root} has no .orchestration/active_intents.yaml, so nothing "
            "there is governed"
        )
    return found


def approve_action(
    title: str, uri: str, diag: types.Diagnostic, code: str, key: str | None = None
) -> types.CodeAction:
    """The quick fix that runs ``intent.approve`` on ``diag`` (``key``: which verdict's
    content, when several of ``code`` overlap its range)."""
    r = diag.range
    where = {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }
    arguments: list[Any] = [uri, where, code]
    if key:
        arguments.append(key)
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag],
        command=types.Command(title=title, command=APPROVE, arguments=arguments),
    )
