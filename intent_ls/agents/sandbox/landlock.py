"""Landlock scopes (kernel ABI 6, Linux 6.12): a process cannot signal, or connect to an
abstract Unix socket of, a process outside its Landlock domain.

With them the sandbox needs no PID namespace to keep a command from killing the agent
or talking to a daemon's abstract socket — and a PID namespace would end every process
a command leaves running (a dev server, a watcher) when the command's shell exits.
Only scopes are asked for: a ruleset that handles no file-system access leaves
bubblewrap free to build its mounts after it.
"""

from __future__ import annotations

import functools
import os
import struct
from typing import Any

_CREATE_RULESET = 444
_RESTRICT_SELF = 446
_VERSION = 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1
_SCOPE_SIGNAL = 2
_PR_SET_NO_NEW_PRIVS = 38
SCOPES_ABI = 6


@functools.cache
def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def abi() -> int:
    """The kernel's Landlock ABI version; 0 where it has none (or it is disabled)."""
    try:
        found = _libc().syscall(_CREATE_RULESET, None, 0, _VERSION)
    except (OSError, AttributeError):
        return 0
    return max(int(found), 0)


def scope_self() -> bool:
    """Scopes this process (and what it execs) to its own domain; whether it could.
    Sets ``no_new_privs``, as bubblewrap does anyway."""
    if abi() < SCOPES_ABI:
        return False
    import ctypes

    libc = _libc()
    attr = ctypes.create_string_buffer(
        struct.pack("QQQ", 0, 0, _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL)
    )
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    fd = libc.syscall(_CREATE_RULESET, attr, len(attr.raw), 0)
    if fd < 0:
        return False
    try:
        return libc.syscall(_RESTRICT_SELF, fd, 0) == 0
    finally:
        os.close(fd)
