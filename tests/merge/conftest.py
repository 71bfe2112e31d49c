"""Fixtures for the merge-safe ledger tests; the helpers are in git_clones.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from git_clones import Clone, make_origin


@pytest.fixture(autouse=True)
def git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A fresh machine has no git identity and a developer's has their own config."""
    for key, value in {
        "GIT_AUTHOR_NAME": "Test Author",
        "GIT_AUTHOR_EMAIL": "author@example.com",
        "GIT_COMMITTER_NAME": "Test Committer",
        "GIT_COMMITTER_EMAIL": "committer@example.com",
        "GIT_CONFIG_GLOBAL": str(tmp_path / "no-global-gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }.items():
        monkeypatch.setenv(key, value)


@pytest.fixture
def origin(tmp_path: Path) -> Clone:
    return make_origin(tmp_path / "origin")
