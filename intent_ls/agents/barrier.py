"""A write barrier for an agent's shell command: Linux Landlock, before the command runs.

Verification after the call (:mod:`.effects`) puts files back, but a change that runs
code within the same command — a git hook written and triggered by one ``bash -c`` — is
over before any after-tool check. Where the agent lets a hook rewrite the command
(Claude Code's PreToolUse ``updatedInput``), it runs as ``intent-ls shell barrier --
COMMAND``: this process restricts itself with Landlock, then runs the command in bash,
which inherits the restriction.

Landlock rules are allow-lists of whole trees, with no "deny inside an allowed tree". So
the barrier allows, along every ancestor of a protected path, each sibling tree and file
that is neither protected nor such an ancestor; the ancestors themselves, and the
protected paths, get only the right to create new entries (which verification then
removes). Existing protected files can then not be written, truncated, removed, renamed
over or hard-linked elsewhere, by anything the command runs. Reading and executing are
not restricted. Where the kernel has no Landlock, :func:`available` says so and the
hooks fall back to verification alone.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_VERSION = 1
_PATH_BENEATH = 1
_NO_NEW_PRIVS = 38

WRITE_FILE = 1 << 1
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE = sum(1 << n for n in (6, 7, 8, 9, 10, 11, 12))  # char, dir, reg, sock, fifo, block, sym
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
#: What a created entry needs (devices excluded): new files, directories, links, pipes.
CREATE = (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 12)
FILE_RIGHTS = WRITE_FILE | TRUNCATE

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class BarrierError(OSError):
    pass


def _syscall(number: int, *args: object) -> int:
    result = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        err = ctypes.get_errno()
        raise BarrierError(err, os.strerror(err))
    return int(result)


def abi() -> int:
    """The kernel's Landlock ABI version, 0 when there is none."""
    try:
        return _syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION))
    except BarrierError as exc:
        if exc.errno in (errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM):
            return 0
        raise


def available() -> bool:
    try:
        return abi() >= 1
    except (BarrierError, AttributeError):
        return False


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _handled(version: int) -> int:
    rights = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    return rights


def _ancestors(path: str) -> list[str]:
    found = []
    here = os.path.dirname(path)
    while True:
        found.append(here)
        parent = os.path.dirname(here)
        if parent == here:
            return found
        here = parent


def plan(protected: Iterable[str]) -> list[tuple[str, bool]]:
    """(path, is a directory tree) for every rule granting full write access: the
    siblings along each protected path's ancestors."""
    guarded = {os.path.normpath(p) for p in protected}
    ancestors = {a for p in guarded for a in _ancestors(p)}
    rules: list[tuple[str, bool]] = []
    for directory in sorted(ancestors):
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            path = os.path.join(directory, name)
            if path in guarded or path in ancestors:
                continue
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode):
                rules.append((path, True))
            elif stat.S_ISREG(mode):
                rules.append((path, False))
    return rules


def restrict(protected: Iterable[str]) -> int:
    """Restricts this process (and what it runs) so that ``protected`` paths cannot be
    changed; returns the number of rules. Raises :class:`BarrierError`."""
    version = abi()
    if version < 1:
        raise BarrierError(errno.ENOSYS, "Landlock is not available on this kernel")
    handled = _handled(version)
    attr = _RulesetAttr(handled)
    ruleset = _syscall(
        _CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
        ctypes.c_uint32(0),
    )  # fmt: skip
    count = 0
    try:
        _add(ruleset, "/", handled & CREATE, directory=True)
        for path, tree in plan(protected):
            rights = handled if tree else handled & FILE_RIGHTS
            if _add(ruleset, path, rights, directory=tree):
                count += 1
        _libc.prctl(_NO_NEW_PRIVS, 1, 0, 0, 0)
        _syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    return count


def _add(ruleset: int, path: str, rights: int, *, directory: bool) -> bool:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC | (0 if directory else os.O_NOFOLLOW))
    except OSError:
        return False
    try:
        rule = _PathBeneath(rights, fd)
        _syscall(
            _ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_PATH_BENEATH), ctypes.byref(rule),
            ctypes.c_uint32(0),
        )  # fmt: skip
        return True
    except BarrierError:
        return False  # e.g. a file system Landlock cannot tag: it stays read-only
    finally:
        os.close(fd)


def protected_paths(root: Path) -> list[str]:
    """What the barrier keeps read-only: the effects' protected set and their store."""
    from intent_ls.agents.effects.protected_set import roots
    from intent_ls.agents.effects.store import state_home

    files, trees = roots(root)
    return [*files, *trees, str(state_home())]


def run(root: Path, command: str, cwd_out: str | None) -> int:
    """Restricts this process, then becomes ``bash -c command``; returns 2 (after
    saying why on stderr) when the barrier cannot be set up: the command does not run."""
    import sys

    try:
        restrict(protected_paths(root))
    except BarrierError as exc:
        sys.stderr.write(f"intent-ls: the write barrier could not be set up ({exc}); ")
        sys.stderr.write("the command did not run\n")
        return 2
    script = command
    if cwd_out:
        script = f'{command}\n__ils_status=$?; pwd -P > "$__ILS_CWD_OUT"; exit $__ils_status'
        os.environ["__ILS_CWD_OUT"] = cwd_out
    os.execvp("bash", ["bash", "-c", script])
    return 2  # not reached: exec replaced this process


def wrap(python: str, root: Path, command: str, cwd_out: str) -> str:
    """The agent's shell command, run under the barrier: the same status, and the
    agent shell's working directory follows a ``cd`` in it, as it would unwrapped."""
    import shlex

    q = shlex.quote
    return (
        f"{q(python)} -I -m intent_ls.agents.barrier {q(str(root))} {q(cwd_out)} {q(command)}; "
        f'__ils=$?; cd "$(cat {q(cwd_out)} 2>/dev/null || pwd)"; rm -f {q(cwd_out)}; '
        "(exit $__ils)"
    )


def unwrap(command: str) -> str:
    """The agent's own command inside :func:`wrap`'s, or ``command`` itself."""
    import shlex

    if " -m intent_ls.agents.barrier " not in command:
        return command
    try:
        words = shlex.split(command.split("; __ils=$?;", 1)[0])
    except ValueError:
        return command
    if len(words) == 7 and words[1:4] == ["-I", "-m", "intent_ls.agents.barrier"]:
        return words[6]
    return command


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 4:
        sys.stderr.write("usage: python -m intent_ls.agents.barrier ROOT CWD_OUT COMMAND\n")
        sys.exit(2)
    sys.exit(run(Path(sys.argv[1]), sys.argv[3], sys.argv[2] or None))
