"""Shared fixtures: every test gets its own copy of the example workspace."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.dependency_limits import resolved_versions

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "workspace"


@pytest.fixture(autouse=True)
def private_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What intent-ls keeps per user (agent sessions' roots and before-states, install
    records) goes under $XDG_STATE_HOME: per test, never in the developer's home, and
    never shared between tests that reuse a session id."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A fresh, writable copy of examples/workspace."""
    dest = tmp_path / "ws"
    shutil.copytree(EXAMPLE, dest, symlinks=True)
    return dest


@pytest.fixture
def git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Git as on a fresh machine, whoever runs the tests: a fixed identity (a fresh
    machine has none) and no global or system config (a developer's has their own)."""
    for key, value in {
        "GIT_AUTHOR_NAME": "Test Author",
        "GIT_AUTHOR_EMAIL": "author@example.com",
        "GIT_COMMITTER_NAME": "Test Committer",
        "GIT_COMMITTER_EMAIL": "committer@example.com",
        "GIT_CONFIG_GLOBAL": str(tmp_path / "no-global-gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }.items():
        monkeypatch.setenv(key, value)


def pytest_report_header() -> str:
    return resolved_versions()
