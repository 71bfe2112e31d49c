"""What a ``sed`` script does besides editing text: GNU sed's ``e COMMAND`` runs a shell
command, the ``e`` flag of ``s///`` runs the pattern space as one, and ``w FILE`` (the
command, or the flag of ``s///``) writes a file — ``sed -i '1e rm -rf src' f`` deletes a
folder while it looks like an edit of ``f``.

Read as GNU sed reads a script: commands separated by newlines and ``;`` (a ``e``/``w``
argument runs to the end of its line), each after an optional address (line numbers,
``$``, ``/regex/``, ``\\cregexc``, ranges and steps), ``{``/``}`` blocks, and ``s``/``y``
whose delimited parts may hold anything.
"""

from __future__ import annotations

from typing import NamedTuple

_ADDRESS_CHARS = frozenset("0123456789$,~+!")


class SedScript(NamedTuple):
    #: The shell commands ``e`` runs, as written.
    runs: tuple[str, ...] = ()
    #: Whether a ``s///e`` runs text only known at run time.
    runs_pattern: bool = False
    #: The files ``w``/``W`` and ``s///w`` write.
    writes: tuple[str, ...] = ()


def _skip_delimited(script: str, at: int, parts: int) -> int:
    """The index after ``parts`` delimited parts starting at the delimiter at ``at``."""
    delimiter = script[at] if at < len(script) else ""
    i = at + 1
    while parts and i < len(script):
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == delimiter:
            parts -= 1
        i += 1
    return i


def _skip_address(script: str, i: int) -> int:
    while i < len(script):
        c = script[i]
        if c in _ADDRESS_CHARS or c.isspace():
            i += 1
        elif c == "/":
            i = _skip_delimited(script, i, 1)
        elif c == "\\" and i + 1 < len(script):
            i = _skip_delimited(script, i + 1, 1)
        else:
            return i
    return i


def _rest_of_line(script: str, i: int) -> tuple[str, int]:
    end = script.find("\n", i)
    end = len(script) if end < 0 else end
    return script[i:end].strip(), end


#: Commands whose argument is the rest of the line (text, a file, a label).
_LINE_ARGUMENT = frozenset("aicrRbtT:")


class _Reader:
    def __init__(self, script: str) -> None:
        self.script = script
        self.runs: list[str] = []
        self.writes: list[str] = []
        self.pattern = False

    def command(self, name: str, i: int) -> int:
        """Reads the command ``name`` whose arguments start at ``i``; where it ends."""
        if name in "ewW":
            text, end = _rest_of_line(self.script, i)
            if name != "e":
                self.writes.append(text)
            elif text:
                self.runs.append(text)
            else:  # ``e`` alone runs the pattern space
                self.pattern = True
            return end
        if name in "sy":
            return self.substitute(name, i)
        if name in _LINE_ARGUMENT:
            return _rest_of_line(self.script, i)[1]
        return i

    def substitute(self, name: str, i: int) -> int:
        end = _skip_delimited(self.script, i, 2)
        flags_end = end
        while flags_end < len(self.script) and self.script[flags_end] not in ";\n}":
            flags_end += 1
        flags = self.script[end:flags_end]
        if name == "s" and "w" in flags:  # the file name runs to the end of the line
            file, flags_end = _rest_of_line(self.script, end + flags.index("w") + 1)
            self.writes.append(file)
            flags = flags[: flags.index("w")]
        self.pattern = self.pattern or (name == "s" and "e" in flags)
        return flags_end


def read(script: str) -> SedScript:
    reader = _Reader(script)
    i = 0
    while i < len(script):
        i = _skip_address(script, i)
        if i < len(script):
            i = reader.command(script[i], i + 1)
    writes = tuple(w for w in reader.writes if w)
    return SedScript(tuple(reader.runs), reader.pattern, writes)
