"""The Markdown the three tools write: prose lines, checklists, and the paths tasks name.

Only what their templates use is read: front matter, fenced code, HTML comments (skipped:
template instructions and examples live there), ``- [ ]`` checklists, headings. What
looks like one of these and is not (a task whose checkbox has an unknown mark, an unclosed
fence) is a :class:`~intent_ls.importers.model.SourceError` naming the line, because
guessing would import the wrong status; a bullet that is not a task is prose.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import attrs

from intent_ls.common.safe_io import read_regular
from intent_ls.importers.model import SourceError
from intent_ls.spec.globs import check_glob

#: A task list or a design is hand-written prose; far beyond this it is not one.
MAX_SOURCE_BYTES = 4 * 1024 * 1024
_CHECKBOX = re.compile(
    r"^(?P<indent>\s*)[-*+]\s+\[(?P<mark>[^\]]*)\](?P<optional>\*?)\s*(?P<text>.*)$"
)
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_BACKTICKED = re.compile(r"`([^`\s]+)`")
#: A bare token with a slash (``src/models/user.py``, ``tests/unit/``); one running into a
#: placeholder (``src/models/[entity].py``) is none.
_BARE = re.compile(r"(?<![\w`/.:@-])((?>(?:\.?[\w.-]+/)+[\w.*-]*))(?![\[<{])")
_FILE_NAME = re.compile(r"[\w.-]*[A-Za-z][\w-]*\.[A-Za-z][\w]{0,7}")
_REFUSED = re.compile(r"://|[\[\]<>{}()$~\\'\"|,;]|(^|/)\.\.(/|$)")
#: The tools' own directories: a task naming them is about the plan, not the code.
TOOL_DIRS = ("specs/", "openspec/", ".kiro/", ".orchestration/", ".specify/", ".git/")


@attrs.frozen
class Line:
    number: int  # 1-based
    text: str


@attrs.frozen
class Checkbox:
    line: Line
    indent: int
    done: bool
    started: bool
    optional: bool
    text: str
    #: The task's own line and the deeper-indented lines under it (details, references).
    block: str


def read_lines(root: Path, rel: str) -> list[str]:
    """The file's lines; a file that is not UTF-8 is refused at the line of its first bad
    byte, one that resolves outside the workspace (through a symlinked directory, or a
    ``source`` in the spec naming ``../``) at line 1, a symlink or special file by
    :func:`~intent_ls.common.safe_io.read_regular`."""
    path = root / rel
    if not path.resolve().is_relative_to(root.resolve()):
        raise SourceError(rel, 1, "resolves outside the workspace; not read")
    data = read_regular(path, MAX_SOURCE_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SourceError(rel, line, f"not UTF-8 text (byte 0x{data[exc.start]:02x})") from None
    # Markdown lines end in LF or CRLF; str.splitlines would also split at U+2028 and
    # friends, which a hostile file could use to make one line look like two.
    lines = [line.removesuffix("\r") for line in text.lstrip("\ufeff").split("\n")]
    return lines[:-1] if lines and lines[-1] == "" else lines


def prose(rel: str, lines: list[str]) -> list[Line]:
    """The lines outside front matter, fenced code and HTML comments."""
    out: list[Line] = []
    fence: tuple[int, str] | None = None
    comment: int | None = None
    for i in range(_body_start(rel, lines), len(lines)):
        text, number = lines[i], i + 1
        if fence is not None:
            fence = None if _closes(fence[1], text) else fence
            continue
        if comment is not None:
            comment = None if "-->" in text else comment
            continue
        match = _FENCE.match(text)
        if match:
            fence = (number, match.group(1))
            continue
        if "<!--" in text:
            text, _, after = text.partition("<!--")
            if "-->" not in after:
                comment = number
            if not text.strip():
                continue
        out.append(Line(number, text))
    if fence is not None:
        raise SourceError(rel, fence[0], "code block opened here is never closed")
    if comment is not None:
        raise SourceError(rel, comment, "HTML comment opened here is never closed ('-->')")
    return out


def _body_start(rel: str, lines: list[str]) -> int:
    """The index of the first line after the front matter (0 without one)."""
    if not lines or lines[0].strip() != "---":
        return 0
    end = next((j for j in range(1, len(lines)) if lines[j].strip() == "---"), None)
    if end is None:
        raise SourceError(rel, 1, "front matter opened with '---' is never closed")
    return end + 1


def _closes(opening: str, text: str) -> bool:
    """Whether ``text`` closes the fence ``opening``: the same character, as many or more."""
    match = _FENCE.match(text)
    return (
        match is not None
        and match.group(1)[0] == opening[0]
        and len(match.group(1)) >= len(opening)
    )


#: The marks of a task's checkbox: open, done, under way (Kiro's ``[-]``, and the ``[~]``
#: that Kiro-style task lists in public repositories write for a task in progress).
STARTED = ("-", "~")
MARKS = (" ", "x", "X", *STARTED)


def checkboxes(rel: str, lines: list[Line], task_id: re.Pattern[str]) -> list[Checkbox]:
    """The task checkboxes among ``lines``. A bullet whose brackets hold something else
    is prose: spec-kit's Notes section (``- [P] tasks = different files``), a link
    (``- [plan](plan.md)``). Only a one-character mark before what ``task_id`` reads as
    a task of the tool (``- [?] T014 …``) is an error: that task's status cannot be read."""
    found: list[Checkbox] = []
    for n, line in enumerate(lines):
        match = _CHECKBOX.match(line.text)
        if match is not None and _is_task_box(rel, line, match, task_id):
            found.append(_checkbox(lines, n, match))
    return found


def _is_task_box(rel: str, line: Line, match: re.Match[str], task_id: re.Pattern[str]) -> bool:
    mark = match.group("mark")
    if mark in MARKS:
        return True
    if len(mark) <= 1 and task_id.match(match.group("text").strip()):
        raise SourceError(
            rel,
            line.number,
            f"unknown checkbox '[{mark}]': write '[ ]' (open), '[x]' (done)"
            " or '[-]'/'[~]' (started)",
        )
    return False


def _checkbox(lines: list[Line], n: int, match: re.Match[str]) -> Checkbox:
    """The checkbox on ``lines[n]``, with the deeper-indented lines under it."""
    indent = len(match.group("indent").expandtabs(4))
    block = [match.group("text")]
    for below in lines[n + 1 :]:
        stripped = below.text.strip()
        depth = len(below.text) - len(below.text.lstrip())
        if stripped and (depth <= indent or _CHECKBOX.match(below.text)):
            break
        block.append(stripped)
    mark = match.group("mark")
    return Checkbox(
        line=lines[n],
        indent=indent,
        done=mark in ("x", "X"),
        started=mark in STARTED,
        optional=bool(match.group("optional")),
        text=match.group("text").strip(),
        block="\n".join(block),
    )


def headings(lines: list[Line], level: int) -> Iterator[tuple[Line, str]]:
    prefix = "#" * level + " "
    for line in lines:
        if line.text.startswith(prefix):
            yield line, line.text[len(prefix) :].strip()


def paths_in(text: str, ignore: frozenset[str] = frozenset()) -> list[str]:
    """Workspace-relative paths a sentence names, in order: backticked paths and file
    names, and bare tokens with a slash that end in a file name or a ``/``. Placeholders
    (``[entity].py``), URLs, parent references and the tools' own directories are not
    paths of the code; nor are the names in ``ignore`` (the feature's own documents)."""
    found: list[str] = []
    candidates = [(m, True) for m in _BACKTICKED.findall(text)]
    candidates += [(m, False) for m in _BARE.findall(_BACKTICKED.sub(" ", text))]
    for raw, ticked in candidates:
        path = _code_path(raw, ticked)
        if path is None or path in ignore or path.startswith(TOOL_DIRS) or path in found:
            continue
        found.append(path)
    return found


def _code_path(raw: str, ticked: bool) -> str | None:
    """``raw`` as a workspace-relative path, or None when it names none."""
    if not ticked and raw.endswith("**") and not raw.endswith("/**"):
        raw = raw.rstrip("*")  # the end of bold text: ``**Language/Version**``
    path = raw.rstrip(".:").removeprefix("./").lstrip("/")
    if not path or _REFUSED.search(path):
        return None
    last = path.rstrip("/").rsplit("/", 1)[-1]
    if "/" not in path.rstrip("/"):
        return path if ticked and _FILE_NAME.fullmatch(path) else None
    if path.endswith("/") or _FILE_NAME.fullmatch(last) or "*" in last:
        return path
    return None


def scope_glob(path: str) -> str | None:
    """The owned_scope entry for a named path: as written (gitignore reads a bare file
    name at any depth, a path with a slash from the root), with ``?`` and leading ``!``
    or ``#`` escaped; None when the result is no valid glob."""
    glob = path.replace("?", "\\?")
    if glob.startswith(("!", "#")):
        glob = "\\" + glob
    return None if check_glob(glob) is not None else glob
