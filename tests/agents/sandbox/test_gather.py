"""The plan's inputs gathered from this machine: the session's private ``/tmp``."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest


def test_a_new_session_removes_the_private_tmp_of_sessions_long_idle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from intent_ls.agents.sandbox.gather import IDLE_TMP_SECONDS, private_tmp

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    idle = Path(private_tmp("old session"))
    (idle / "patch.diff").write_text("x")
    recent = Path(private_tmp("recent session"))
    long_ago = time.time() - IDLE_TMP_SECONDS - 60
    os.utime(idle, (long_ago, long_ago))
    os.utime(recent, (long_ago, long_ago))
    assert Path(private_tmp("recent session")) == recent  # a command of it: in use again

    new = Path(private_tmp("new session"))

    assert new.is_dir() and recent.is_dir()
    assert not idle.exists()
