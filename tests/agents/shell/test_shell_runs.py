"""Every program a command string runs, from the shell model."""

from __future__ import annotations

import shlex

import pytest

from intent_ls.agents.shell.reading import MAX_NESTING
from intent_ls.agents.shell.runs import programs_run


def run(command: str) -> list[list[str | None]]:
    return [[w.value for w in argv] for argv in programs_run(command)]


@pytest.mark.parametrize(
    ("command", "programs"),
    [
        ("sudo -u me nice -n 5 make all", [["make", "all"]]),
        ("cd src && rm -rf build; ls | wc -l", [["cd", "src"], ["rm", "-rf", "build"],
                                                ["ls"], ["wc", "-l"]]),
        ("echo $(whoami) > out", [["whoami"], ["echo", None]]),
        ("bash -lc 'git status && tmux new -d x'", [["bash", "-lc", "git status && tmux new -d x"],
                                                   ["git", "status"], ["tmux", "new", "-d", "x"]]),
        ("eval 'docker run x'", [["eval", "docker run x"], ["docker", "run", "x"]]),
        ("find . -exec rm {} +", [["find", ".", "-exec", "rm", "{}", "+"], ["rm", "{}"]]),
        ("ls | xargs -n1 rm", [["ls"], ["xargs", "-n1", "rm"], ["rm", None]]),
        ("cat <<EOF | sh\nat now\nEOF\n", [["cat"], ["sh"]]),
        ("for f in $(ls); do crontab $f; done", [["ls"], ["crontab", None]]),
    ],
)  # fmt: skip
def test_programs_run(command: str, programs: list[list[str | None]]) -> None:
    assert run(command) == programs


def test_what_cannot_be_read_is_a_program_known_only_at_run_time() -> None:
    assert run('sh -c "$CMD"') == [["sh", "-c", None], [None]]
    assert run("eval $x") == [["eval", None], [None]]
    deep = "echo " + "$(" * MAX_NESTING + "x" + ")" * MAX_NESTING
    assert run(deep) == [[None]]
    nested = "x"
    for _ in range(10):
        nested = f"sh -c {shlex.quote(nested)}"
    assert run(nested)[-1] == [None]
    assert run(nested)[0][:2] == ["sh", "-c"]
