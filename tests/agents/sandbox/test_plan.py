"""The sandbox's plan as bubblewrap arguments: the order of the mounts is the policy."""

from __future__ import annotations

from intent_ls.agents.sandbox.plan import Plan, argv


def _plan(**extra: object) -> Plan:
    return Plan(root="/w", cwd="/w/src", tmp="/t/s1", **extra)  # type: ignore[arg-type]


def _after(args: list[str], first: list[str], then: list[str]) -> bool:
    def at(words: list[str]) -> int:
        return next(i for i in range(len(args)) if args[i : i + len(words)] == words)

    return at(first) < at(then)


def test_everything_is_read_only_before_anything_is_writable() -> None:
    args = argv("bwrap", _plan(writable=("/h/.cache",), readonly=("/w/.git/config",)), "bash", "ls")
    assert args[:5] == ["bwrap", "--ro-bind", "/", "/", "--dev"]
    assert _after(args, ["--bind", "/w", "/w"], ["--ro-bind", "/w/.git/config", "/w/.git/config"])
    assert _after(args, ["--bind", "/t/s1", "/tmp"], ["--bind", "/w", "/w"])
    assert args[args.index("/h/.cache") - 1 :][:3] == ["--bind", "/h/.cache", "/h/.cache"]
    assert args[-3:-1] == ["bash", "-c"] and args[-1].endswith("; ls")


def test_no_capabilities_no_host_daemons_and_the_command_last() -> None:
    args = argv(
        "bwrap",
        _plan(masked_dirs=("/run/dbus",), masked_files=("/run/docker.sock",), max_tasks=99),
        "bash",
        "b",
    )
    for flag in ("--unshare-user", "--unshare-ipc", "--new-session"):
        assert flag in args
    assert args[args.index("--cap-drop") + 1] == "ALL"
    assert args[args.index("/run/dbus") - 1 :][:2] == ["--tmpfs", "/run/dbus"]
    assert args[args.index("/run/docker.sock") - 2 :][:3] == [
        "--ro-bind",
        "/dev/null",
        "/run/docker.sock",
    ]
    assert "TMUX" in args and "DBUS_SESSION_BUS_ADDRESS" in args
    assert args[args.index("--chdir") + 1] == "/w/src"
    end = args.index("--")
    # The command last, as the agent wrote it, after the task limit on its first line.
    assert args[end + 1 :] == ["bash", "-c", "ulimit -Su 99 -Hu 99 2>/dev/null; b"]


def test_a_pid_namespace_only_without_landlock_scopes() -> None:
    assert "--unshare-pid" not in argv("bwrap", _plan(), "bash", "x")
    args = argv("bwrap", _plan(pid_namespace=True), "bash", "x")
    assert args[args.index("--unshare-pid") :][:3] == ["--unshare-pid", "--proc", "/proc"]
