"""Programs that hand work to a daemon running outside any sandbox of the agent's: what
they start runs later, elsewhere, with the daemon's rights (``docker run -v /:/host``
runs as root with any host path), so no sandbox of the command and no put-back after the
call reaches it. Each is held for a human: container runs and starts (``docker run``,
``compose up``), ``systemd-run``, ``at``/``batch``, ``crontab``, ``ssh`` (to this host or
another), and the terminal multiplexers' commands that run or type into a shell (``tmux
new-window``/``send-keys``, ``screen -X``).

``nohup``, ``setsid`` and ``&`` are not here: what they start is the command's own child,
confined with it, and what it changes after the call is judged when it is seen. Building
an image (``docker build``) runs its steps in the daemon without any host path: it runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from intent_ls.agents.shell.model import Word, options
from intent_ls.agents.shell.programs.remote import remote
from intent_ls.agents.shell.walk import DESTRUCTIVE, Walk

#: Container subcommands (also under ``compose`` and ``container``) that run code in the
#: daemon or reach the host through it.
CONTAINER_RUNS = frozenset(["run", "exec", "create", "start", "restart", "up", "attach", "cp"])
#: tmux commands that only read or print (the rest start, type into or end shells).
TMUX_READS = frozenset(
    [
        "ls", "list-sessions", "list-windows", "list-panes", "list-clients", "list-keys",
        "list-buffers", "list-commands", "has-session", "has", "show-options", "show",
        "show-environment", "showenv", "display-message", "display", "capture-pane",
        "capturep", "info", "server-info", "show-buffer", "showb",
    ]
)  # fmt: skip


def _held(walk: Walk, what: str) -> None:
    walk.raise_to(
        DESTRUCTIVE, f"{what} hands work to a daemon outside the sandbox, which nothing undoes"
    )


def container(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    """``docker``/``podman``: a run or start is held; a publish or delete is the remote
    tools' business (:func:`.remote.remote`); anything else runs (``build``, ``ps``)."""
    words = {w.value for w in rest}
    run = sorted(w for w in words if w in CONTAINER_RUNS)
    if run:
        _held(walk, f"{name}{' compose' if 'compose' in words else ''} {run[0]}")
    elif "down" in words and words & {"-v", "--volumes"}:
        walk.raise_to(DESTRUCTIVE, f"{name} compose down -v deletes volumes")
    else:
        remote(walk, name.split("-", 1)[0], rest)  # ``docker-compose`` is ``docker``


def always(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    if [w.value for w in rest] not in (["-V"], ["--version"]):
        _held(walk, name)


def crontab(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    if [w.value for w in rest] != ["-l"]:
        _held(walk, name)


def tmux(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    _, operands = options(rest)
    command = operands[0].value if operands else None
    if command not in TMUX_READS:
        _held(walk, f"tmux {command or '(a new session)'}")


def screen(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    """``screen -X`` sends a running session a command; ``-dm`` starts a detached one."""
    flags, _ = options(rest)
    if "X" in flags or {"d", "m"} <= flags or {"D", "m"} <= flags:
        _held(walk, "screen")


HANDLERS = {
    "docker": container,
    "podman": container,
    "docker-compose": container,
    "podman-compose": container,
    "systemd-run": always,
    "at": always,
    "batch": always,
    "ssh": always,
    "crontab": crontab,
    "tmux": tmux,
    "screen": screen,
}
