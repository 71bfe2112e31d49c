"""What the agents' own rule files have in common: a plain script's commands, and the
files of a rules folder, read safely.

Some agents (Codex CLI, Gemini CLI) match their own rules for shell commands on the
command a before-tool hook returned, so a command rewritten to run under the write
barrier (:mod:`intent_ls.agents.barrier`) can lose a rule of theirs. The rewritten form
is a script: the barrier's ``exec``, ``exit 126``, then the command verbatim. An agent
that judges a script command by command still matches a rule on one command of it (a
``deny`` stays one); an **allow** is lost, since a script is allowed only when every
command of it is. So a command is left as written when the agent's own rules decide it
(each agent's ``rules`` module says how, as its profile's ``own_rule``): the agent
judges it as its user meant, and what it changes is verified after it ran. Only a plain
script (commands joined by ``&&``, ``||``, ``;``, ``|``, quoted words, no expansion or
redirection) can be wholly allowed; anything else stays behind the barrier, so an agent
cannot slip a command past it by joining it to an allowed one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

MAX_FILE = 1024 * 1024
_OPERATORS = ("&&", "||", ";", "|")
#: What takes a script out of the plain form both agents read command by command.
_NOT_PLAIN = frozenset("\n\r$`<>(){}\\#")


def plain_commands(script: str) -> list[str] | None:
    """The commands of a plain script, as written (quotes kept), or None."""
    parts, start, quote, at = [], 0, "", 0
    while at < len(script):
        char = script[at]
        if quote == '"' and char in "$`\\":
            return None  # expanded inside double quotes: ``"$(…)"`` runs a command
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in _NOT_PLAIN:
            return None
        elif char in ";&|":
            operator = script[at : at + 2] if script[at : at + 2] in _OPERATORS else char
            if operator not in _OPERATORS:
                return None  # a lone ``&``: a background job
            parts.append(script[start:at])
            at += len(operator)
            start = at
            continue
        at += 1
    if quote:
        return None
    parts.append(script[start:])
    commands = [p.strip() for p in parts]
    return commands if all(commands) else None


def read(path: Path) -> str | None:
    from intent_ls.common.safe_io import read_regular

    try:
        return read_regular(path, MAX_FILE, follow=True).decode("utf-8")
    except (OSError, ValueError):
        return None


def files(folders: list[Path], suffix: str) -> Iterator[Path]:
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        yield from (folder / name for name in names if name.endswith(suffix))
