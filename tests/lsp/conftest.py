"""Fixtures for the pytest-lsp end-to-end tests; the harness is in lsp_harness.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsp_harness import CLIENTS, Editor, fresh_workspace, start_editor, stop_editor


@pytest.fixture(params=CLIENTS)
def client_name(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return fresh_workspace(tmp_path)


@pytest_asyncio.fixture
async def editor(client_name: str, workspace: Path) -> AsyncIterator[Editor]:
    ed = await start_editor(client_name, [workspace])
    yield ed
    await stop_editor(ed)
