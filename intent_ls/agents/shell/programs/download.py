"""``curl -o`` and ``wget`` write what they download (``wget`` under a name taken from
the URL unless told)."""

from __future__ import annotations

from collections.abc import Sequence

from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.walk import UNKNOWN, Walk

_OUTPUT = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document")}
#: Programs that fetch code from elsewhere (``curl … | sh`` runs it unseen).
FETCHERS = frozenset(_OUTPUT)


def download(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    flags = _OUTPUT[name]
    for i, arg in enumerate(rest):
        if arg.value in flags and i + 1 < len(rest):
            walk.write(rest[i + 1], name)
    if name == "wget" and not any(a.value in flags for a in rest):
        walk.raise_to(UNKNOWN, "wget saves under a name taken from the URL")


HANDLERS = dict.fromkeys(_OUTPUT, download)
