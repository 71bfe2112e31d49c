"""State the server must capture at the event, not after it: the disk stamp that decides
whether a file is read again is taken before the read at open, so a write landing in
between is noticed by the next look."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from intent_ls.server import disk as disk_module
from intent_ls.server.disk import DiskTracker


def test_a_write_between_the_open_read_and_its_stamp_is_noticed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    real_read = disk_module.read_text

    def read_then_someone_writes(p: Path) -> str | None:
        text = real_read(p)
        path.write_text("x = 2  # theirs, written right after our read\n")
        return text

    monkeypatch.setattr(disk_module, "read_text", read_then_someone_writes)
    disk = DiskTracker(path)
    assert disk.open("x = 1\n", time.time_ns()) == "x = 1\n"
    monkeypatch.setattr(disk_module, "read_text", real_read)
    assert not disk.changed
    assert disk.look() is True  # the stamp was taken before the write
    assert disk.changed and disk.current_text == "x = 2  # theirs, written right after our read\n"


def test_an_unchanged_disk_after_a_save_is_not_a_change(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    disk = DiskTracker(path)
    disk.open("x = 1\n", time.time_ns())
    path.write_text("x = 2\n")
    disk.saved("x = 2\n")
    assert disk.look() is False and not disk.changed
