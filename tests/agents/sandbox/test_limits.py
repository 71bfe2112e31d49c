"""The task limit's pieces: the shell that lowers ``RLIMIT_NPROC`` inside the sandbox,
and where this process's cgroup is in a cgroup v1 ``pids`` hierarchy."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls.agents.sandbox.limits import (
    bounded,
    pids_hierarchy,
    session_cgroup,
    writable_hierarchy,
)

_MOUNTS = (
    "24 23 0:21 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
    "31 24 0:28 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "33 24 0:30 /ci /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "35 24 0:32 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
)


def test_the_limit_is_set_by_the_commands_own_bash_before_the_command() -> None:
    assert bounded("/bin/bash", "make -j", 64) == [
        "/bin/bash",
        "-c",
        "ulimit -Su 64 -Hu 64 2>/dev/null; make -j",
    ]


def test_the_scripts_own_lines_keep_their_numbers_in_bashs_messages() -> None:
    """The limit shares the script's first line, so an agent reading bash's syntax
    error is pointed at its own line, not one after it."""
    done = subprocess.run(bounded("bash", "true\nif then", 64), capture_output=True)
    assert done.returncode == 2
    assert b"line 2:" in done.stderr


def test_the_pids_cgroup_of_this_process_under_the_hierarchys_mount() -> None:
    own = "9:name=systemd:/\n8:pids:/ci/job-7\n4:memory:/x\n0::/\n"
    assert pids_hierarchy(_MOUNTS, own) == "/sys/fs/cgroup/pids/job-7"
    assert pids_hierarchy(_MOUNTS, "8:pids:/ci\n") == "/sys/fs/cgroup/pids"


def test_no_hierarchy_on_cgroup_v2_or_outside_the_mounts_root() -> None:
    assert pids_hierarchy(_MOUNTS, "0::/user.slice\n") is None
    assert pids_hierarchy(_MOUNTS, "8:pids:/elsewhere\n") is None
    assert pids_hierarchy(_MOUNTS, "8:pids:/cix/job\n") is None
    v2_only = "35 24 0:32 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
    assert pids_hierarchy(v2_only, "8:pids:/\n") is None


def test_a_cgroup_removed_before_its_command_joins_is_made_again(tmp_path: Path) -> None:
    """Another session's first command removes the cgroups no process is in, this one's
    too in the moment between making it and joining it: the join makes it again, with the
    session's limit, rather than run the command unbounded."""
    folder = tmp_path / "intent-ls-0123456789abcdef"
    procs = folder / "cgroup.procs"
    code = "import sys; from intent_ls.agents.sandbox.limits import join; join(sys.argv[1], 64)"
    done = subprocess.run([sys.executable, "-c", code, str(procs)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (folder / "pids.max").read_text() == "64"
    assert procs.read_text().isdigit()


def test_a_session_cgroup_removed_before_the_join_still_bounds_the_command() -> None:
    """As root where the ``pids`` hierarchy is writable: the real cgroup, removed as
    another session's clean-up would, then joined by a process that reads its limit."""
    parent = writable_hierarchy() if os.geteuid() == 0 else None
    if parent is None:
        pytest.skip("no writable cgroup v1 pids hierarchy here (root in a v1 container)")
    procs = session_cgroup("test" + os.urandom(6).hex(), 64)
    folder = os.path.dirname(procs)
    os.rmdir(folder)
    code = (
        "import sys; from intent_ls.agents.sandbox.limits import join; join(sys.argv[1], 64)\n"
        "print(open(sys.argv[2]).read().strip())"
    )
    limit = os.path.join(folder, "pids.max")
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, procs, limit], capture_output=True, text=True
        )
        assert done.stdout.strip() == "64", done.stderr
        assert os.path.isdir(folder)
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(folder)
