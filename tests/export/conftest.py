"""Fixtures for the export tests; the helpers are in export_helpers.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from export_helpers import Workspace, sample_saves


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "ws")


@pytest.fixture
def recorded(ws: Workspace) -> Workspace:
    """Saves by AI and by a human under two intents, an out-of-scope verdict left open,
    another one approved."""
    return sample_saves(ws)
