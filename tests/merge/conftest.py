"""Fixtures for the merge-safe ledger tests; the helpers are in git_clones.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from git_clones import Clone, make_origin


@pytest.fixture(autouse=True)
def _git(git_identity: None) -> None:
    """Every test here runs git (``git_identity``: tests/conftest.py)."""


@pytest.fixture
def origin(tmp_path: Path) -> Clone:
    return make_origin(tmp_path / "origin")
