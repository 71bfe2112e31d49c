"""File operations: what ``rm``, ``cp``, ``mv``, ``touch``, ``dd``, ``chmod`` … write
(their operands) and which of them destroy data."""

from __future__ import annotations

from collections.abc import Sequence

from intent_ls.agents.shell.model import Word, options
from intent_ls.agents.shell.walk import DESTRUCTIVE, UNKNOWN, Walk

#: Options of ``truncate``, ``mkdir`` and ``touch`` whose value is no file they write.
_VALUED = {
    "truncate": frozenset({"-s", "--size", "-r", "--reference"}),
    "mkdir": frozenset({"-m", "--mode"}),
    "touch": frozenset({"-d", "-t", "-r", "--date", "--reference"}),
}


def rm(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    flags, operands = options(rest)
    for target in operands:
        walk.write(target, name)
    recursive = " -r" if flags & {"r", "R", "--recursive"} else ""
    walk.raise_to(DESTRUCTIVE, f"{name}{recursive} deletes files")


def rmdir(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    for target in options(rest)[1]:
        walk.write(target, name)


def targets_last(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    """``cp``/``install``/``ln``: the last operand (or ``-t DIR``) is written."""
    values = [w.value for w in rest]
    for flag in ("-t", "--target-directory"):
        if flag in values:
            i = values.index(flag)
            if i + 1 < len(rest):
                walk.write(rest[i + 1], name)
            return
    _, operands = options(rest)
    if len(operands) >= 2 or (name == "install" and operands):
        walk.write(operands[-1], name)
    elif operands:
        walk.raise_to(UNKNOWN, f"{name} with a single operand")


def mv(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    _, operands = options(rest)
    for target in operands:
        walk.write(target, name)  # the sources disappear, the target appears
    onto = operands[-1].value if len(operands) >= 2 else None
    if onto is not None and onto.startswith("/dev/"):
        # Gone for good; as root the device itself is replaced by the file.
        walk.raise_to(DESTRUCTIVE, f"mv onto {onto} destroys what it moves")


def each_operand(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    """``touch``/``mkdir``/``tee``/``truncate``: every operand is written."""
    skip_value = _VALUED.get(name, frozenset())
    args = list(rest)
    kept = []
    while args:
        arg = args.pop(0)
        if arg.value in skip_value and args:
            args.pop(0)
        else:
            kept.append(arg)
    for target in options(kept)[1]:
        walk.write(target, name)
    if name == "truncate":
        walk.raise_to(DESTRUCTIVE, "truncate cuts files short")


def dd(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    walk.raise_to(DESTRUCTIVE, "dd overwrites raw data")
    for arg in rest:
        if arg.value and arg.value.startswith("of="):
            walk.write(Word(arg.value[3:], False, arg.text), "dd")


def chmod(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    flags, operands = options(rest)
    if flags & {"R", "--recursive"}:
        walk.raise_to(DESTRUCTIVE, f"{name} -R changes a whole tree")
    for target in operands[1:]:
        walk.write(target, name)


def destroys(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    walk.raise_to(DESTRUCTIVE, f"{name} destroys data")


#: Programs that wipe disks or file systems (and every ``mkfs.*``: :func:`destroyer`).
DESTROYERS = ("shred", "wipefs", "fdisk", "parted", "mkswap")


def destroyer(name: str) -> bool:
    return name.startswith("mkfs") or name in DESTROYERS


HANDLERS = {
    "rm": rm,
    "unlink": rm,
    "rmdir": rmdir,
    "cp": targets_last,
    "install": targets_last,
    "ln": targets_last,
    "mv": mv,
    "touch": each_operand,
    "mkdir": each_operand,
    "tee": each_operand,
    "truncate": each_operand,
    "dd": dd,
    "chmod": chmod,
    "chown": chmod,
    "chgrp": chmod,
    **dict.fromkeys(DESTROYERS, destroys),
}
