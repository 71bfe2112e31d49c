"""The launcher's side of the watch, with bubblewrap's ends played by the test: what
the launcher does when bubblewrap reports the process it holds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from intent_ls.agents.sandbox import liveness


def _reported(found: liveness.Watch, pid: int) -> None:
    os.write(found.info_w, b'{\n    "child-pid": %d\n}\n' % pid)
    liveness.close_bwrap_ends(found)


def test_the_held_process_is_noted_then_bounded_then_let_go(tmp_path: Path) -> None:
    found = liveness.watch(str(tmp_path), "s1")
    block_r = os.dup(found.block_r)
    _reported(found, os.getpid())
    seen: list[tuple[int, bool]] = []
    notes = liveness.records_dir(tmp_path)
    liveness.release(found, before_go=lambda pid: seen.append((pid, any(notes.iterdir()))))
    assert seen == [(os.getpid(), True)]  # noted before it was bounded and let go
    assert os.read(block_r, 1) == b"1"
    os.close(block_r)


def test_a_note_that_cannot_be_written_still_bounds_and_lets_go(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "blocker").write_text("")
    found = liveness.watch(str(tmp_path), "s1")._replace(folder=str(tmp_path / "blocker"))
    block_r = os.dup(found.block_r)
    _reported(found, os.getpid())
    seen: list[int] = []
    liveness.release(found, before_go=seen.append)
    assert seen == [os.getpid()]
    assert os.read(block_r, 1) == b"1"
    assert "could not note its command" in capfd.readouterr().err
    os.close(block_r)


def test_bubblewrap_failing_before_it_started_anything_ends_quietly(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    found = liveness.watch(str(tmp_path), "s1")
    liveness.close_bwrap_ends(found)  # EOF: no process reported
    seen: list[int] = []
    liveness.release(found, before_go=seen.append)
    assert seen == [] and capfd.readouterr().err == ""
    assert not liveness.records_dir(tmp_path).exists()
