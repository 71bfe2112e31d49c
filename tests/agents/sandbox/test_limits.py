"""The task limit's pieces: the shell that lowers ``RLIMIT_NPROC`` inside the sandbox,
and where this process's cgroup is in a cgroup v1 ``pids`` hierarchy."""

from __future__ import annotations

import subprocess

from intent_ls.agents.sandbox.limits import bounded, pids_hierarchy

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
