"""Shared fixtures: every test gets its own copy of the example workspace."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "workspace"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A fresh, writable copy of examples/workspace."""
    dest = tmp_path / "ws"
    shutil.copytree(EXAMPLE, dest, symlinks=True)
    return dest
