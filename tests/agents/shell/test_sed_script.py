"""A ``sed`` script's own commands that run shell commands or write files."""

from __future__ import annotations

from pathlib import Path

import pytest

from intent_ls.agents.shell.classify import classify_command
from intent_ls.agents.shell.programs.sed_script import SedScript, read


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("1e rm -rf src", SedScript(runs=("rm -rf src",))),
        ("2,5{e ls\n}", SedScript(runs=("ls",))),
        ("e", SedScript(runs_pattern=True)),
        ("s/x/rm -rf src/e", SedScript(runs_pattern=True)),
        ("1w /tmp/x", SedScript(writes=("/tmp/x",))),
        ("s/a/b/gw out.txt", SedScript(writes=("out.txt",))),
        # Not commands: an e or w inside a regex, a replacement, a label or appended text.
        ("s/a/b/g", SedScript()),
        ("/foo/ { s/e/w/g; p }", SedScript()),
        ("s|/e|/w|g;3d", SedScript()),
        ("y/ew/we/", SedScript()),
        ("$a\\ new line e x", SedScript()),
        ("\\,e,d", SedScript()),
    ],
)
def test_what_a_script_runs_and_writes(script: str, expected: SedScript) -> None:
    assert read(script) == expected


@pytest.mark.parametrize(
    ("command", "klass"),
    [
        ("sed -i '1e rm -rf src' src/app.py", "destructive"),
        ("sed --expression='1e rm -rf src' f", "destructive"),
        ("sed -i 's/x/y/e' src/app.py", "unknown"),
        ("sed -f edits.sed src/app.py", "unknown"),
        ("sed -n '1w ~/.bashrc' src/app.py", "destructive"),
        ("sed -i 's/a/b/g' src/app.py", "write"),
        ("sed -n '/e/p' src/app.py", "safe"),
    ],
)
def test_sed_is_judged_by_what_its_script_does(tmp_path: Path, command: str, klass: str) -> None:
    assert classify_command(command, tmp_path, None).klass == klass
