"""A cloned repository's planted symlinks and special files against the real CLI.

Each test runs ``intent-ls`` as a subprocess on a workspace an attacker prepared and
checks two things: nothing outside the workspace changed, and the CLI refused with exit
status 2 and one line naming the path (never a traceback, never a MemoryError).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls.ledger.store import Ledger, ledger_path
from tests.core.ledger.ledger_helpers import created


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "intent_ls", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        # A runaway allocation must fail fast, not swap the machine: 2 GiB of address space.
        preexec_fn=lambda: __import__("resource").setrlimit(
            __import__("resource").RLIMIT_AS, (2 << 30, 2 << 30)
        ),
    )


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "home" / ".bashrc"
    path.parent.mkdir()
    path.write_text("export PATH=/usr/bin\n")
    return path


def refused(result: subprocess.CompletedProcess[str], name: str) -> None:
    """Exit 2, ending with one error line that names the path (problems the verb found
    on the way, e.g. the spec's, may precede it); never a traceback."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("intent-ls: error: "), last
    assert name in last and ("refusing to use" in last or "not a regular file" in last), last


def add_record(workspace: Path) -> None:
    record = created(workspace)
    Ledger(ledger_path(workspace), fsync=False).append(record)


def test_map_never_writes_through_a_planted_temp_symlink(workspace: Path, secret: Path) -> None:
    add_record(workspace)
    (workspace / ".orchestration/intent_map.md.tmp").symlink_to(secret)
    result = run("map", "--workspace", str(workspace))
    assert result.returncode == 0, result.stderr
    assert secret.read_text() == "export PATH=/usr/bin\n"
    assert (workspace / ".orchestration/intent_map.md").read_text().startswith("# Intent map")


def test_map_refuses_a_symlinked_map(workspace: Path, secret: Path) -> None:
    add_record(workspace)
    (workspace / ".orchestration/intent_map.md").symlink_to(secret)
    refused(run("map", "--workspace", str(workspace)), "intent_map.md")
    assert secret.read_text() == "export PATH=/usr/bin\n"


def test_map_refuses_a_symlinked_sidecar(workspace: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    os.rename(workspace / ".orchestration", elsewhere)
    (workspace / ".orchestration").symlink_to(elsewhere, target_is_directory=True)
    result = run("map", "--workspace", str(workspace))
    refused(result, ".orchestration")
    assert sorted(p.name for p in elsewhere.iterdir()) == ["active_intents.yaml"]


def test_context_refuses_a_brain_symlinked_to_a_secret(workspace: Path, secret: Path) -> None:
    (workspace / ".orchestration/CLAUDE.md").symlink_to(secret)
    result = run("context", "INT-001", "--workspace", str(workspace))
    refused(result, "CLAUDE.md")
    assert "PATH=/usr/bin" not in result.stdout


@pytest.mark.parametrize("verb", [("trace", "verify"), ("trace", "show"), ("map",)])
def test_ledger_on_dev_zero_is_refused_without_allocating(
    workspace: Path, verb: tuple[str, ...]
) -> None:
    ledger_path(workspace).symlink_to("/dev/zero")
    refused(run(*verb, "--workspace", str(workspace), timeout=30), "agent_trace.jsonl")


@pytest.mark.parametrize("verb", [("trace", "verify"), ("trace", "show"), ("map",)])
def test_ledger_symlinked_to_a_regular_file_outside_is_refused(
    workspace: Path, secret: Path, verb: tuple[str, ...]
) -> None:
    ledger_path(workspace).symlink_to(secret)
    result = run(*verb, "--workspace", str(workspace))
    refused(result, "agent_trace.jsonl")
    assert "refusing to use" in result.stderr and "symlink" in result.stderr
    assert "PATH=/usr/bin" not in result.stdout + result.stderr
