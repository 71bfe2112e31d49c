"""``git``: which subcommands (with which options) destroy work or history, which
rewrite working-tree files nobody can name in advance, and which touch nothing outside
``.git/``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from intent_ls.agents.shell.model import Word, options
from intent_ls.agents.shell.walk import DESTRUCTIVE, UNKNOWN, Walk

#: Subcommands that touch nothing outside ``.git/`` (never governed).
GIT_SAFE = frozenset(
    [
        "status", "log", "show", "diff", "blame", "grep", "ls-files", "ls-tree",
        "rev-parse", "describe", "shortlog", "reflog", "fetch", "remote", "config", "tag",
        "add", "commit", "notes", "cat-file", "branch", "show-ref", "for-each-ref",
        "version", "help",
    ]
)  # fmt: skip
#: Subcommands that rewrite working-tree files nobody can name in advance.
GIT_WORKTREE = frozenset(
    [
        "checkout", "switch", "merge", "pull", "rebase", "cherry-pick", "revert", "am",
        "apply", "stash", "restore", "mv", "rm",
    ]
)  # fmt: skip
#: Subcommands that rewrite history wholesale.
HISTORY_REWRITES = frozenset(["filter-branch", "filter-repo", "replace"])
#: git's own options before the subcommand that take a value.
_GLOBAL_VALUED = frozenset(["-C", "-c", "--git-dir", "--work-tree"])
_PUSH_FORCED = frozenset(
    ["f", "--force", "--force-with-lease", "--mirror", "--delete", "d", "--prune"]
)
_FORCE = frozenset(["f", "--force"])


class _Args:
    """A subcommand's words: its flags, operands and every value."""

    __slots__ = ("flags", "operands", "words")

    def __init__(self, words: Sequence[Word]) -> None:
        self.words = words
        self.flags, self.operands = options(words)

    @property
    def values(self) -> set[str | None]:
        return {w.value for w in self.words}

    def first_operand(self, *among: str) -> bool:
        return bool(self.operands) and self.operands[0].value in among


def _push(sub: str, a: _Args) -> str | None:
    forced = a.flags & _PUSH_FORCED or any(
        (w.value or "").startswith(("+", ":")) for w in a.operands
    )
    return "git push rewrites or deletes remote history" if forced else None


def _reset(sub: str, a: _Args) -> str | None:
    return "git reset --hard discards uncommitted work" if "--hard" in a.flags else None


def _clean(sub: str, a: _Args) -> str | None:
    return "git clean -f deletes untracked files" if a.flags & _FORCE else None


def _branch(sub: str, a: _Args) -> str | None:
    if "D" in a.flags or (a.flags & {"d", "--delete"} and a.flags & _FORCE):
        return "git branch -D deletes unmerged work"
    return _moves_ref(sub, a) if a.flags & {"f", "--force", "M", "C"} else None


def _tag(sub: str, a: _Args) -> str | None:
    return _moves_ref(sub, a) if a.flags & {"d", "--delete", "f", "--force"} else None


def _moves_ref(sub: str, a: _Args) -> str:
    return f"git {sub} moves or deletes a ref"


def _discards(sub: str, a: _Args) -> str | None:
    """``checkout``/``restore`` of paths (``.``, ``--``) or forced."""
    if "." in a.values or "--" in a.values or a.flags & _FORCE:
        return f"git {sub} discards uncommitted changes"
    return None


def _rewrites_history(sub: str, a: _Args) -> str | None:
    return f"git {sub} rewrites or drops history"


def _reflog(sub: str, a: _Args) -> str | None:
    return _rewrites_history(sub, a) if a.first_operand("expire", "delete") else None


def _update_ref(sub: str, a: _Args) -> str | None:
    return "git update-ref deletes or rewrites refs" if a.flags & {"d", "--stdin"} else None


def _gc(sub: str, a: _Args) -> str | None:
    pruned = any((w.value or "").startswith("--prune") for w in a.words)
    return "git gc --prune drops unreachable commits" if pruned else None


def _stash(sub: str, a: _Args) -> str | None:
    return "git stash drop/clear deletes stashed work" if a.first_operand("drop", "clear") else None


#: Subcommand → why the options it was given destroy work or history (None: they do not).
_DESTROYS: dict[str, Callable[[str, _Args], str | None]] = {
    "push": _push,
    "reset": _reset,
    "clean": _clean,
    "branch": _branch,
    "tag": _tag,
    "checkout": _discards,
    "restore": _discards,
    "reflog": _reflog,
    "update-ref": _update_ref,
    "gc": _gc,
    "stash": _stash,
    **dict.fromkeys(HISTORY_REWRITES, _rewrites_history),
}


def _subcommand(rest: Sequence[Word]) -> list[Word]:
    """The subcommand and its words, after git's own options."""
    args = list(rest)
    while args and (args[0].value or "").startswith("-"):
        option = args.pop(0).value or ""
        if option in _GLOBAL_VALUED and args:
            args.pop(0)
    return args


def git(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    args = _subcommand(rest)
    sub = args[0].value if args else None
    if sub is None:
        walk.raise_to(UNKNOWN, "git with a subcommand only known at run time")
        return
    words = _Args(args[1:])
    if sub == "rm":
        for target in words.operands:
            walk.write(target, "git rm")
        walk.raise_to(DESTRUCTIVE, "git rm deletes files")
        return
    check = _DESTROYS.get(sub)
    reason = check(sub, words) if check is not None else None
    if reason is not None:
        walk.raise_to(DESTRUCTIVE, reason)
    elif sub == "push" or sub in GIT_SAFE:
        return
    elif sub in GIT_WORKTREE:
        walk.raise_to(UNKNOWN, f"git {sub} rewrites working-tree files not known in advance")
    else:
        walk.raise_to(UNKNOWN, f"git {sub} is not a subcommand intent-ls knows the effects of")


HANDLERS = {"git": git}
