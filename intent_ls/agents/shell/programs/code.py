"""Code handed to an interpreter on its command line (``python -c``, ``node -e``, ``perl
-e``, ``ruby -e``, ``php -r``) or on stdin (``python <<EOF``, ``echo … | node``): the
calls that delete, truncate or move files are read from it, since no sandbox or put-back
undoes what such code does to an ignored file, a database file or a path outside the
workspace (as root, ``shutil.rmtree('/')`` empties every writable path of the machine).
Any other code is not read here: it runs, and its effects are judged after the call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.walk import DESTRUCTIVE, UNKNOWN, Walk

#: Language → the calls (as a pattern over the code's text) that delete, truncate or move.
_DESTROYING = {
    "python": re.compile(
        r"\b(rmtree|remove|unlink|rmdir|removedirs|truncate|rename|renames|move)\s*\("
        r"|\bos\s*\.\s*replace\s*\("
    ),
    "node": re.compile(
        r"\b(rmSync|rm|rmdir|rmdirSync|unlink|unlinkSync|truncate|truncateSync|rename"
        r"|renameSync|emptyDir|emptyDirSync|remove|removeSync|moveSync)\s*\("
    ),
    "perl": re.compile(r"\b(unlink|rmdir|rmtree|remove_tree|rename|truncate|move)(?=[\s(\"'$@;])"),
    "ruby": re.compile(
        r"\b(FileUtils\s*\.\s*\w+|File\s*\.\s*(delete|unlink|rename|truncate)"
        r"|Dir\s*\.\s*(rmdir|delete|unlink)|rmtree)\b"
    ),
    "php": re.compile(r"\b(unlink|rmdir|rename|ftruncate)\s*\("),
}
#: Program → its language.
LANGUAGE = {
    "python": "python", "python3": "python", "node": "node", "nodejs": "node",
    "perl": "perl", "ruby": "ruby", "php": "php",
}  # fmt: skip
#: Program → the options whose value is code to run.
_CODE_OPTIONS = {
    "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p", "--print"),
    "ruby": ("-e",),
    "php": ("-r",),
}


def destroys(walk: Walk, program: str, code: str) -> bool:
    """Holds ``code`` for a human when it deletes, truncates or moves files."""
    found = _DESTROYING[LANGUAGE[program]].search(code)
    if found is None:
        return False
    call = found.group(0).rstrip("( \t")
    walk.raise_to(
        DESTRUCTIVE, f"{program} runs code that deletes, truncates or moves files ({call})"
    )
    return True


def given_code(program: str, rest: Sequence[Word]) -> list[Word]:
    """The words given as code to run (``-e CODE``, ``--eval=CODE``)."""
    flags = _CODE_OPTIONS.get(program, ())
    found = []
    for i, arg in enumerate(rest):
        value = arg.value or ""
        if value in flags and i + 1 < len(rest):
            found.append(rest[i + 1])
        elif value.startswith("--") and value.split("=", 1)[0] in flags:
            found.append(Word(value.split("=", 1)[1], text=arg.text))
    return found


def interpreter(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    """``node -e``, ``ruby -e``, ``php -r``, or the code piped into them."""
    code = given_code(name, rest)
    if any(w.value is None for w in code):
        walk.raise_to(UNKNOWN, f"{name} runs code only known at run time")
        return
    text = "\n".join(w.value or "" for w in code)
    if not code and not [w for w in rest if not (w.value or "").startswith("-")]:
        text = walk.stdin if isinstance(walk.stdin, str) else ""
    if not destroys(walk, name, text):
        walk.raise_to(UNKNOWN, f"{name} runs code intent-ls does not read")


HANDLERS = dict.fromkeys(_CODE_OPTIONS, interpreter)
