"""A hostile repository's symlinks and special files against every sidecar writer and reader."""

from __future__ import annotations

import datetime as dt
import os
import threading
from pathlib import Path

import pytest

from intent_ls.common import local_state
from intent_ls.common.safe_io import (
    FileTooLargeError,
    UnsafePathError,
    read_regular,
    read_sidecar,
    write_atomic,
    write_new,
)
from intent_ls.ledger.intentmap import IntentInfo, render
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.workspace import brain
from intent_ls.workspace.discover import Workspace


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "id_rsa"
    path.parent.mkdir()
    path.write_bytes(b"PRIVATE KEY")
    return path


def record(n: int = 0) -> dict[str, object]:
    return {"id": f"r{n}", "timestamp": "2026-01-01T00:00:00Z", "files": []}


def test_ledger_symlinked_outside_is_refused_and_target_untouched(
    workspace: Path, secret: Path
) -> None:
    ledger = ledger_path(workspace)
    ledger.unlink(missing_ok=True)
    ledger.symlink_to(secret)
    with pytest.raises(UnsafePathError, match=r"agent_trace\.jsonl.*symlink"):
        Ledger(ledger).append(record())
    assert secret.read_bytes() == b"PRIVATE KEY"
    assert not ledger.with_name("agent_trace.jsonl.quarantine").exists()


def test_quarantine_symlink_is_refused(workspace: Path, secret: Path) -> None:
    ledger = ledger_path(workspace)
    ledger.write_bytes(b'{"torn')
    ledger.with_name("agent_trace.jsonl.quarantine").symlink_to(secret)
    with pytest.raises(UnsafePathError, match="quarantine"):
        Ledger(ledger).append(record())
    assert secret.read_bytes() == b"PRIVATE KEY"


@pytest.mark.parametrize("link", [".orchestration", ".orchestration/.local"])
def test_symlinked_sidecar_directory_receives_nothing(
    tmp_path: Path, link: str, workspace: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = workspace / link
    if target.exists():
        os.rename(target, elsewhere / "moved")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnsafePathError, match=link.rsplit("/", 1)[-1]):
        Ledger(workspace / ".orchestration/agent_trace.jsonl").append(record())
    with pytest.raises(UnsafePathError):
        local_state.save_selection(workspace, "INT-001", "s1")
    assert {p.name for p in elsewhere.iterdir()} <= {"moved"}


def test_brain_symlink_is_neither_read_nor_copied(workspace: Path, secret: Path) -> None:
    (workspace / brain.BRAIN_RELPATH).symlink_to(secret)
    with pytest.raises(UnsafePathError, match=r"CLAUDE\.md"):
        brain.read_brain(workspace)
    with pytest.raises(UnsafePathError):
        brain.record_lesson(workspace, "INT-001", "lesson", dt.date(2026, 1, 1))
    assert secret.read_bytes() == b"PRIVATE KEY"
    assert (workspace / brain.BRAIN_RELPATH).is_symlink()


def test_write_atomic_never_follows_a_planted_temp_name(workspace: Path, secret: Path) -> None:
    target = workspace / ".orchestration/CLAUDE.md"
    for pid in (os.getpid(), os.getpid() + 1):
        (target.parent / f".CLAUDE.md.{pid}.tmp").symlink_to(secret)
    (target.parent / "CLAUDE.md.tmp").symlink_to(secret)
    write_atomic(target, b"new brain")
    assert target.read_bytes() == b"new brain"
    assert secret.read_bytes() == b"PRIVATE KEY"
    assert not [
        p for p in target.parent.iterdir() if p.name.endswith(".tmp") and not p.is_symlink()
    ]


def test_write_atomic_refuses_special_target_and_escape(workspace: Path) -> None:
    fifo = workspace / ".orchestration/intent_map.md"
    os.mkfifo(fifo)
    with pytest.raises(UnsafePathError, match="FIFO"):
        write_atomic(fifo, b"x")
    with pytest.raises(UnsafePathError, match="outside the workspace"):
        write_atomic(workspace / ".orchestration/../../evil", b"x", anchor=workspace)


def test_reads_are_bounded_and_regular_only(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UnsafePathError, match="FIFO"):  # returns at once: O_NONBLOCK
        read_regular(fifo, 10, follow=True)
    link = tmp_path / "zero"
    link.symlink_to("/dev/zero")
    with pytest.raises(UnsafePathError, match="symlink"):
        read_sidecar(link, 10)
    with pytest.raises(UnsafePathError, match="device"):
        read_regular(link, 10, follow=True)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    with pytest.raises(FileTooLargeError, match="10 bytes"):
        read_regular(big, 10)
    assert read_regular(big, 11) == b"x" * 11


def test_intentignore_on_a_fifo_or_over_cap_is_not_read(workspace: Path) -> None:
    ignore = workspace / ".intentignore"
    ignore.unlink()
    os.mkfifo(ignore)
    done = threading.Event()

    def classify() -> None:
        Workspace(workspace).classify("src/app.py")
        done.set()

    threading.Thread(target=classify, daemon=True).start()
    assert done.wait(10), "reading a FIFO .intentignore blocked"
    ignore.unlink()
    ignore.write_bytes(b"src/\n" + b"#" * (300 * 1024))
    assert Workspace(workspace).ignore_lines() == ()


def test_intent_names_cannot_start_a_line_in_the_map() -> None:
    text = render(
        [], {"INT-9": IntentInfo("ok\n## Owned by mallory\n- Status: DONE", "IN_PROGRESS")}
    )
    assert not any(line.startswith(("## Owned", "- Status: DONE")) for line in text.splitlines())
    assert "ok\\x0a## Owned by mallory" in text


def test_write_new_writes_only_a_file_it_created(tmp_path: Path, secret: Path) -> None:
    fresh = tmp_path / "fresh"
    write_new(fresh, b"x" * 3_000_000)
    assert fresh.read_bytes() == b"x" * 3_000_000
    assert fresh.stat().st_mode & 0o777 == 0o600
    planted = tmp_path / "planted"
    planted.symlink_to(secret)
    before = secret.read_bytes()
    with pytest.raises(FileExistsError):
        write_new(planted, b"evil")
    with pytest.raises(FileExistsError):
        write_new(fresh, b"again")
    assert secret.read_bytes() == before
    assert fresh.read_bytes() == b"x" * 3_000_000
