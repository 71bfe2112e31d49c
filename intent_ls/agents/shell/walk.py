"""What the classifier found a command does so far: its class, the files it writes and
why. Each program's knowledge (:mod:`.programs`) reports into one :class:`Walk`."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from intent_ls.agents.sandbox.plan import HOME_CACHES
from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.stdin import Stdin

SAFE = "safe"
WRITE = "write"
UNKNOWN = "unknown"
DESTRUCTIVE = "destructive"
_RANK = {SAFE: 0, WRITE: 1, UNKNOWN: 2, DESTRUCTIVE: 3}
#: Where a command may write outside the workspace without anyone asking.
SCRATCH_DIRS = ("/tmp/", "/var/tmp/", "/dev/")
#: Targets that are no file.
_NO_FILE = frozenset(["/dev/null", "/dev/stdout", "/dev/stderr", "-"])


def in_home_cache(path: str) -> bool:
    """Whether ``path`` (``~/…`` or absolute) is inside one of the development caches
    under ``$HOME`` that the sandbox lets every command write (``~/.cache``, ``~/.npm``,
    …): a write there is ordinary work, neither outside the workspace nor the intent's."""
    home = os.path.expanduser("~")
    rel = path[2:] if path.startswith("~/") else None
    if rel is None and path.startswith(home.rstrip(os.sep) + os.sep):
        rel = path[len(home.rstrip(os.sep)) + 1 :]
    if rel is None or ".." in PurePosixPath(rel).parts:
        return False
    return any(rel == cache or rel.startswith(cache + "/") for cache in HOME_CACHES)


class Classification(NamedTuple):
    klass: str
    writes: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"class": self.klass, "writes": list(self.writes), "reasons": list(self.reasons)}


class Walk:
    """One classification under way. A plain class: a hook process creates it at
    import, where an attrs class costs a millisecond."""

    __slots__ = ("argv_reader", "cwd", "cwd_known", "klass", "reasons", "root", "stdin",
                 "text_reader", "writes")  # fmt: skip

    def __init__(
        self,
        root: str,
        cwd: str,
        text_reader: Callable[[Walk, str, int], None],
        argv_reader: Callable[[Walk, Sequence[Word], int], None],
    ) -> None:
        self.root = root
        self.cwd = cwd
        #: The classifier's readers of a nested command string (``bash -c``) and of the
        #: program an argv runs (``xargs CMD``), handed to the programs that run others,
        #: which cannot import the classifier (it imports them).
        self.text_reader = text_reader
        self.argv_reader = argv_reader
        self.klass = SAFE
        #: False once a ``cd`` went where the classifier cannot follow.
        self.cwd_known = True
        self.writes: list[str] = []
        self.reasons: list[str] = []
        #: What the command being read gets on stdin, where the command line says (the
        #: SQL piped into ``psql``, the code into ``python``): :mod:`.stdin`.
        self.stdin: Stdin = None

    def raise_to(self, klass: str, reason: str) -> None:
        if _RANK[klass] > _RANK[self.klass]:
            self.klass = klass
        if reason not in self.reasons:
            self.reasons.append(reason)

    def write(self, word: Word, what: str) -> None:
        """Records a written target; a computed or globbed one makes the command unknown."""
        if word.value is None or word.glob:
            self.raise_to(UNKNOWN, f"{what} writes {word.text!r}, only known at run time")
            return
        if word.value in _NO_FILE:
            return
        if not self.cwd_known and not word.value.startswith(("/", "~")):
            self.raise_to(UNKNOWN, f"{what} writes {word.value!r} from a directory not known")
            return
        path = self.relative(word.value)
        if in_home_cache(path):
            self.raise_to(WRITE, f"{what} writes {path}, a development cache")
            return
        if path not in self.writes:
            self.writes.append(path)
        if path.startswith("~") or (path.startswith("/") and not path.startswith(SCRATCH_DIRS)):
            self.raise_to(DESTRUCTIVE, f"{what} writes {path}, outside the workspace")
        else:
            self.raise_to(WRITE, f"{what} writes {path}")

    def relative(self, value: str) -> str:
        """Workspace-relative when inside the workspace, else the absolute path."""
        if value.startswith("~"):
            return value
        joined = os.path.normpath(os.path.join(self.cwd, value))
        if joined == self.root:
            return "."
        if joined.startswith(self.root + os.sep):
            return PurePosixPath(joined[len(self.root) + 1 :]).as_posix()
        return joined

    def read_text(self, command: str, depth: int) -> None:
        """Classifies a command string ``depth`` strings deep into this walk."""
        self.text_reader(self, command, depth)

    def read_argv(self, argv: Sequence[Word], depth: int) -> None:
        """Classifies the program ``argv`` runs into this walk."""
        self.argv_reader(self, argv, depth)

    def aside(self) -> Walk:
        """A walk from here that reports nothing to this one (what ``xargs`` or ``find
        -exec`` would run, judged before it is reported under their name)."""
        return Walk(self.root, self.cwd, self.text_reader, self.argv_reader)

    def classification(self) -> Classification:
        return Classification(self.klass, tuple(self.writes), tuple(self.reasons))
