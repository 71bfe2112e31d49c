"""Notes of intent-ls's own writes: what they vouch for, and that a note which cannot
be written is skipped rather than a failed write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from intent_ls.common import own_writes


def test_a_note_vouches_for_what_was_noted_only(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    own_writes.note(target, b'{"a": 1}')
    assert own_writes.vouched(target, b'{"a": 1}')
    assert not own_writes.vouched(target, b'{"a": 2}')
    assert not own_writes.vouched(tmp_path / "other.json", b'{"a": 1}')


def test_a_path_through_a_link_is_the_same_file(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    own_writes.note(tmp_path / "link" / "f", b"x")
    assert own_writes.vouched(tmp_path / "real" / "f", b"x")


def test_the_newest_notes_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "ledger"
    for n in range(3 * own_writes.KEEP):
        own_writes.note(target, b"line %d" % n)
    assert own_writes.vouched(target, b"line %d" % (3 * own_writes.KEEP - 1))
    assert not own_writes.vouched(target, b"line 0")
    assert len(own_writes.noted(target)) <= 2 * own_writes.KEEP + 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through read-only folders")
def test_a_note_that_cannot_be_written_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    monkeypatch.setenv("XDG_STATE_HOME", str(locked))
    own_writes.note(tmp_path / "f", b"x")  # no exception
    assert not own_writes.vouched(tmp_path / "f", b"x")


def test_a_note_in_a_state_folder_that_is_a_file_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    own_writes.note(tmp_path / "f", b"x")
    assert not own_writes.vouched(tmp_path / "f", b"x")
