"""The sidecar as an overlay for one command: a copy folder per command, locked from its
making, the sidecar's other entries bound read-only over the copy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from intent_ls.agents.effects.ledger_copy import finished
from intent_ls.agents.sandbox import bwrap, ledger_copy
from intent_ls.agents.sandbox.plan import Plan, argv

found = bwrap.binary()


@pytest.fixture
def overlay_bwrap() -> str:
    """bubblewrap, where it can mount the overlay (tried in the test's own state folder,
    which tests/conftest.py sets for every test)."""
    if found is None or not ledger_copy.works(found):
        pytest.skip("no overlay in a sandbox here")
    return found


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".orchestration" / ".local").mkdir(parents=True)
    (root / ".orchestration" / "active_intents.yaml").write_text("active_intents: []\n")
    (root / ".orchestration" / "agent_trace.jsonl").write_text("")
    return root


def test_a_copy_per_command_its_lock_held_until_the_command_and_its_children_end(
    tmp_path: Path, overlay_bwrap: str
) -> None:
    root = _workspace(tmp_path)
    (root / ".orchestration" / "gone").symlink_to(tmp_path / "nothing")  # never bound
    copy = ledger_copy.prepare(root, overlay_bwrap)
    assert copy is not None
    assert copy.kept == (
        str(root / ".orchestration" / ".local"),
        str(root / ".orchestration" / "active_intents.yaml"),
    )
    assert list(finished(root)) == []  # its launcher holds it
    os.close(copy.lock_fd)
    assert [p.name for p in finished(root)] == [os.path.basename(os.path.dirname(copy.upper))]


def test_the_overlay_goes_over_the_read_only_sidecar_and_its_other_entries_over_it() -> None:
    copy = ledger_copy.LedgerCopy(
        "/w/.orchestration", "/s/up", "/s/work", ("/w/.orchestration/a",), 9
    )
    args = argv(
        "bwrap",
        Plan("/w", "/w", "/t", readonly=("/w/.orchestration",), ledger_copy=copy),
        "bash",
        "x",
    )
    ro = args.index("/w/.orchestration") - 1
    overlay = args.index("--overlay")
    assert args[ro] == "--ro-bind" and ro < overlay
    assert args[overlay - 2 : overlay + 4] == [
        "--overlay-src", "/w/.orchestration", "--overlay", "/s/up", "/s/work", "/w/.orchestration",
    ]  # fmt: skip
    assert args[overlay + 4 : overlay + 7] == [
        "--ro-bind",
        "/w/.orchestration/a",
        "/w/.orchestration/a",
    ]


def test_no_copy_without_a_sidecar_folder(tmp_path: Path) -> None:
    assert ledger_copy.prepare(tmp_path, found or "bwrap") is None
