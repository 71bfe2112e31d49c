"""Python interpreters: ``python -m pytest`` and the like only read, ``python -m twine
upload`` publishes, code given with ``-c`` or on stdin that deletes or moves files is
held (:mod:`.code`); any other script is code nobody reads here."""

from __future__ import annotations

from collections.abc import Sequence

from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.programs.code import destroys
from intent_ls.agents.shell.programs.readers import CHECKERS
from intent_ls.agents.shell.programs.remote import REMOTE_IRREVERSIBLE, remote
from intent_ls.agents.shell.walk import UNKNOWN, Walk

#: Modules run with ``-m`` that only read or print.
READING_MODULES = frozenset(["json.tool", "pydoc", "this"])


def interpreter(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    values = [w.value for w in rest]
    if "-m" in values:
        i = values.index("-m")
        module = values[i + 1] if i + 1 < len(values) else None
        if module in CHECKERS or module in READING_MODULES:
            return
        if module in REMOTE_IRREVERSIBLE:
            remote(walk, module, rest[i + 2 :])
            return
    if values in (["--version"], ["-V"]):
        return
    if not destroys(walk, name, _code(values, walk)):
        walk.raise_to(UNKNOWN, f"{name} runs code intent-ls does not read")


def _code(values: list[str | None], walk: Walk) -> str:
    """The code of ``-c CODE``, or what stdin feeds an interpreter given no script."""
    if "-c" in values:
        i = values.index("-c")
        return (values[i + 1] or "") if i + 1 < len(values) else ""
    script = [v for v in values if v is None or not v.startswith("-") or v == "-"]
    if not script or script[0] == "-":
        return walk.stdin if isinstance(walk.stdin, str) else ""
    return ""


HANDLERS = {"python": interpreter, "python3": interpreter}
