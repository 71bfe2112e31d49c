"""``.pre-commit-hooks.yaml``: the hooks pre-commit installs from this repository run the
CLI's own verbs, once per commit, from the repository root."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def hooks() -> dict[str, dict[str, object]]:
    data = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return {hook["id"]: hook for hook in data}


def test_hook_ids_and_required_keys() -> None:
    found = hooks()
    assert set(found) == {"intent-ls-validate", "intent-ls-check"}
    for hook in found.values():
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert hook["language"] == "python"  # pre-commit pip-installs this repository
        # Both verbs look at the whole workspace; a file list would be an unknown argument.
        assert hook["pass_filenames"] is False


def test_validate_runs_when_a_spec_changes() -> None:
    hook = hooks()["intent-ls-validate"]
    pattern = re.compile(str(hook["files"]))
    assert pattern.search(".orchestration/active_intents.yaml")
    assert pattern.search("services/api/.orchestration/active_intents.yaml")
    assert not pattern.search("src/active_intents.yaml")
    assert not pattern.search(".orchestration/agent_trace.jsonl")


def test_check_runs_on_every_commit() -> None:
    assert hooks()["intent-ls-check"]["always_run"] is True


def test_entries_are_cli_verbs_that_work(workspace: Path) -> None:
    for hook in hooks().values():
        program, *args = shlex.split(str(hook["entry"]))
        assert program == "intent-ls"
        shown = subprocess.run(
            [sys.executable, "-m", "intent_ls", *args, "--help"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert shown.returncode == 0, hook["id"]
    validate = shlex.split(str(hooks()["intent-ls-validate"]["entry"]))[1:]
    ran = subprocess.run(
        [sys.executable, "-m", "intent_ls", *validate],
        cwd=workspace,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
