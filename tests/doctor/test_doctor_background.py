"""``intent-ls doctor``'s ``agents background`` check: processes that agents' sandboxed
commands left running, by session, with their pids and command lines and how to end
them; nothing said when none runs, and no note of the sandbox removed by doctor."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from intent_ls.agents.sandbox import bwrap, gather, liveness, run
from intent_ls.cli.main import main
from tests.support import SPEC

pytestmark = pytest.mark.skipif(not bwrap.works()[0], reason="bubblewrap cannot run here")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    ws = tmp_path / "ws"
    (ws / ".orchestration").mkdir(parents=True)
    (ws / ".orchestration" / "active_intents.yaml").write_text(SPEC)
    return ws


def _leave_running(root: Path, key: str) -> None:
    """A sandboxed command of ``key`` that leaves a detached process (its own session,
    every descriptor closed), returning once that process is up."""
    found = bwrap.binary()
    assert found is not None
    mark = root / "up"
    code = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid(); os.closerange(0, 1024)\n"
        f"    open({str(mark)!r}, 'w').write('up')\n"
        "    time.sleep(60)\n"
    )
    plan = gather.build(root, str(root), key, bwrap=found)
    assert run.wait_confined(found, plan, "bash", f"{sys.executable} -c {_q(code)}") == 0
    deadline = time.monotonic() + 20
    while not mark.exists():
        assert time.monotonic() < deadline, "the detached process never started"
        time.sleep(0.02)


def _q(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _doctor(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, dict[str, object]]:
    main(["doctor", "--workspace", str(root)])
    text = capsys.readouterr().out
    main(["doctor", "--workspace", str(root), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    [check] = [c for c in report["checks"] if c["check"] == "background"] or [{}]
    return text, check


def _end(root: Path, pids: list[int]) -> None:
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while liveness.left_running(root):
        assert time.monotonic() < deadline, "the process never ended"
        time.sleep(0.05)


def test_a_process_a_session_left_running_is_shown_with_how_to_end_it(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _leave_running(root, "s1")
    text, check = _doctor(root, capsys)
    pids = check["facts"]["processes"]["s1"]  # type: ignore[index]
    assert len(pids) == 1
    [line] = [x for x in text.splitlines() if "agents background:" in x]
    assert line.startswith("note  agents background: 1 process that agents' commands left")
    assert f"session s1: {pids[0]} ({sys.executable} -c" in line
    assert f"Next step: if they are not needed: `kill {pids[0]}`" in line
    assert check["status"] == "note"
    _end(root, pids)
    notes = sorted(liveness.records_dir(root).glob("*.json"))
    text, check = _doctor(root, capsys)
    assert "agents background" not in text and check == {}
    assert sorted(liveness.records_dir(root).glob("*.json")) == notes  # doctor removed none


def test_the_workspaces_own_commands_are_named_as_such(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Qwen Code's commands are not told the session: they are the workspace's."""
    _leave_running(root, os.path.realpath(root))
    text, check = _doctor(root, capsys)
    assert "the workspace's commands: " in text
    _end(root, [pid for group in check["facts"]["processes"].values() for pid in group])  # type: ignore[union-attr,index]


def test_nothing_is_said_when_nothing_was_left_running(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = bwrap.binary()
    assert found is not None
    plan = gather.build(root, str(root), "s1", bwrap=found)
    assert run.wait_confined(found, plan, "bash", "true") == 0
    text, check = _doctor(root, capsys)
    assert "agents background" not in text and check == {}
