"""Codex's ``apply_patch`` envelope: which files a patch touches, and their new text.

The format (``*** Begin Patch`` … ``*** End Patch``) names each file with ``*** Add
File:``, ``*** Delete File:`` or ``*** Update File:`` (optionally followed by ``*** Move
to:``); an update carries ``@@`` hunks of context (`` ``), removed (``-``) and added
(``+``) lines. Every file is reported, deletes and moves included, so the hook judges
all of them; a hunk that does not apply leaves that file's new text unknown (judged on
its path alone), since Codex itself will refuse it.
"""

from __future__ import annotations

from typing import NamedTuple

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE = "*** Add File: ", "*** Delete File: "
UPDATE, MOVE = "*** Update File: ", "*** Move to: "
EOF_MARK = "*** End of File"


class PatchError(ValueError):
    """The text is not an apply_patch envelope."""


class Hunk(NamedTuple):
    context: str
    old: tuple[str, ...]
    new: tuple[str, ...]


class PatchedFile(NamedTuple):
    path: str
    op: str  # "add" | "delete" | "update"
    #: An added file's lines; empty otherwise.
    added: tuple[str, ...] = ()
    hunks: tuple[Hunk, ...] = ()
    move_to: str | None = None

    def new_text(self, old_text: str | None) -> str | None:
        """The file's content after the patch; None for a delete, or when a hunk does
        not apply to ``old_text``."""
        if self.op == "add":
            return "".join(line + "\n" for line in self.added)
        if self.op == "delete" or old_text is None:
            return None
        return apply_hunks(old_text, self.hunks)


def parse_patch(text: str) -> list[PatchedFile]:
    lines = text.strip("\n").splitlines()
    # The shell form ``apply_patch <<'EOF' … EOF`` wraps the same envelope.
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == BEGIN)
    except StopIteration:
        raise PatchError("no '*** Begin Patch' line") from None
    files: list[PatchedFile] = []
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if line.strip() == END:
            return files
        if line.startswith(ADD):
            added = []
            i += 1
            while i < len(lines) and lines[i].startswith("+"):
                added.append(lines[i][1:])
                i += 1
            files.append(PatchedFile(line[len(ADD) :].strip(), "add", tuple(added)))
            continue
        if line.startswith(DELETE):
            files.append(PatchedFile(line[len(DELETE) :].strip(), "delete"))
            i += 1
            continue
        if line.startswith(UPDATE):
            path = line[len(UPDATE) :].strip()
            i += 1
            move_to = None
            if i < len(lines) and lines[i].startswith(MOVE):
                move_to = lines[i][len(MOVE) :].strip()
                i += 1
            hunks, i = _hunks(lines, i)
            files.append(PatchedFile(path, "update", (), tuple(hunks), move_to))
            continue
        if not line.strip():
            i += 1
            continue
        raise PatchError(f"unexpected line {i + 1}: {line[:80]!r}")
    raise PatchError("no '*** End Patch' line")


def _hunks(lines: list[str], i: int) -> tuple[list[Hunk], int]:
    hunks: list[Hunk] = []
    context = ""
    old: list[str] = []
    new: list[str] = []

    def flush() -> None:
        if old or new:
            hunks.append(Hunk(context, tuple(old), tuple(new)))
        old.clear()
        new.clear()

    while i < len(lines):
        line = lines[i]
        if line.strip() == EOF_MARK:
            i += 1
            continue
        if line.startswith("*** "):
            break
        if line.startswith("@@"):
            flush()
            context = line[2:].strip()
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        else:
            body = line[1:] if line.startswith(" ") else line
            old.append(body)
            new.append(body)
        i += 1
    flush()
    return hunks, i


def apply_hunks(old_text: str, hunks: tuple[Hunk, ...]) -> str | None:
    lines = old_text.splitlines()
    trailing = old_text.endswith("\n") or not old_text
    pos = 0
    for hunk in hunks:
        if hunk.context:
            anchor = _find(lines, (hunk.context,), pos)
            if anchor is not None:
                pos = anchor + 1
        at = _find(lines, hunk.old, pos) if hunk.old else len(lines)
        if at is None:
            return None
        lines[at : at + len(hunk.old)] = list(hunk.new)
        pos = at + len(hunk.new)
    return "\n".join(lines) + ("\n" if trailing and lines else "")


def _find(lines: list[str], wanted: tuple[str, ...], start: int) -> int | None:
    """Where ``wanted`` occurs from ``start``: exactly, then ignoring trailing spaces,
    then ignoring surrounding spaces (Codex is lenient the same way)."""
    n = len(wanted)
    for norm in (lambda s: s, str.rstrip, str.strip):
        target = [norm(w) for w in wanted]
        for at in range(start, len(lines) - n + 1):
            if [norm(x) for x in lines[at : at + n]] == target:
                return at
    return None
