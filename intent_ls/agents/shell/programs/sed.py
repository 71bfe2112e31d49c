"""``sed -i`` and ``perl -i`` rewrite the files they are given; a ``sed`` script's own
commands that run shell commands or write files are judged as those (:mod:`.sed_script`);
``perl`` code that deletes or moves files is held (:mod:`.code`); other ``perl`` without
``-i`` runs a script nobody reads here."""

from __future__ import annotations

from collections.abc import Sequence

from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.programs import sed_script
from intent_ls.agents.shell.programs.code import destroys
from intent_ls.agents.shell.walk import UNKNOWN, Walk

_SCRIPT_OPTIONS = frozenset(["-e", "--expression", "-f", "--file"])


class _Line:
    """A ``sed``/``perl`` command line, read: in place or not, whether the script was
    given in an option, and the operands (the script first, unless given)."""

    __slots__ = ("in_place", "operands", "script_file", "script_given", "scripts")

    def __init__(self) -> None:
        self.in_place = False
        self.script_given = False
        self.script_file = False
        self.scripts: list[Word] = []
        self.operands: list[Word] = []

    @property
    def files(self) -> list[Word]:
        return self.operands if self.script_given else self.operands[1:]

    @property
    def script_words(self) -> list[Word]:
        """The script's words: each ``-e``'s, else the first operand."""
        return self.scripts if self.script_given else self.operands[:1]


def _short(value: str, letters: str) -> bool:
    """A bundle of short options (``-ni``) holding one of ``letters``."""
    return (
        value.startswith("-")
        and not value.startswith("--")
        and any(c in value[1:] for c in letters)
    )


def _script_option(line: _Line, value: str, args: list[Word]) -> bool:
    """Takes ``-e S``/``-f F``/``--expression=S``/``--file=F``; whether ``value`` was one."""
    if value in _SCRIPT_OPTIONS and args:
        line.scripts.append(args.pop(0))
        option = value
    elif value.startswith(("--expression=", "--file=")):
        option, _, script = value.partition("=")
        line.scripts.append(Word(script, text=script))
    else:
        return False
    line.script_given = True
    line.script_file = line.script_file or option in ("-f", "--file")
    return True


def _read(name: str, rest: Sequence[Word]) -> _Line:
    line = _Line()
    args = list(rest)
    while args:
        arg = args.pop(0)
        value = arg.value or ""
        if _script_option(line, value, args):
            continue
        if value.startswith("--in-place") or _short(value, "i"):
            line.in_place = True
        elif name == "perl" and value.startswith("-") and any(c in value[1:] for c in "eE"):
            if args:
                args.pop(0)
            line.script_given = True
        elif not (value.startswith("-") and len(value) > 1):
            line.operands.append(arg)
    return line


def _perl_code(rest: Sequence[Word]) -> str:
    """The code of each ``perl -e``/``-E`` (a bundle such as ``-pe`` included)."""
    values = [w.value or "" for w in rest]
    return "\n".join(
        values[i + 1]
        for i, value in enumerate(values[:-1])
        if value.startswith("-") and not value.startswith("--") and "e" in value.lower()[1:]
    )


def _sed_script(walk: Walk, line: _Line, depth: int) -> None:
    """What the script runs and writes (:mod:`.sed_script`), judged as if written out."""
    if line.script_file:
        walk.raise_to(UNKNOWN, "sed runs a script file intent-ls does not read")
        return
    for word in line.script_words:
        if word.value is None:
            walk.raise_to(UNKNOWN, "sed with a script only known at run time")
            continue
        found = sed_script.read(word.value)
        for command in found.runs:
            walk.read_text(command, depth + 1)
        if found.runs_pattern:
            walk.raise_to(UNKNOWN, "sed runs its edited text as a shell command (s///e)")
        for target in found.writes:
            walk.write(Word(target, text=target), "sed w")


def sed(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    line = _read(name, rest)
    if name == "perl" and destroys(walk, name, _perl_code(rest)):
        return
    if name == "sed":
        _sed_script(walk, line, depth)
    if name == "perl" and not line.in_place:
        walk.raise_to(UNKNOWN, "perl runs a script intent-ls does not read")
        return
    if line.in_place:
        for target in line.files:
            walk.write(target, f"{name} -i")


HANDLERS = {"sed": sed, "perl": sed}
