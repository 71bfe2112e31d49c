"""Whether a session's commands left a process alive, however it hid: through the
real launcher and bubblewrap, judged by what :func:`liveness.living` answers."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from intent_ls.agents.sandbox import bwrap, gather, liveness, run

pytestmark = pytest.mark.skipif(not bwrap.works()[0], reason="bubblewrap cannot run here")

BASH = shutil.which("bash") or "/bin/bash"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def _run(root: Path, key: str, script: str) -> int:
    found = bwrap.binary()
    assert found is not None
    plan = gather.build(root, str(root), key, bwrap=found)
    return run.wait_confined(found, plan, BASH, script)


def _detached(seconds: float, mark: str, then: str = "") -> str:
    """A grandchild in a session of its own, every descriptor closed, that writes
    ``mark`` once alive and lives ``seconds``."""
    code = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        os.closerange(0, 1024)\n"
        f"        open({mark!r}, 'w').write('up')\n"
        f"        {then or 'pass'}\n"
        f"        time.sleep({seconds})\n"
        "    os._exit(0)\n"
    )
    return f"{sys.executable} -c {_quote(code)}"


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 20
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def _until_dead(root: Path, keys: frozenset[str]) -> None:
    deadline = time.monotonic() + 20
    while liveness.living(root, keys):
        assert time.monotonic() < deadline, "the process never ended"
        time.sleep(0.05)


def test_a_command_that_ended_leaves_nothing_alive_and_no_note(root: Path) -> None:
    assert _run(root, "s1", "echo hi > out.txt") == 0
    assert (root / "out.txt").read_text() == "hi\n"
    assert not liveness.living(root, frozenset({"s1"}))
    assert not list(liveness.records_dir(root).glob("*.json"))


def test_a_detached_process_that_closed_everything_is_still_the_sessions(root: Path) -> None:
    mark = root / "up"
    assert _run(root, "s1", _detached(3, str(mark))) == 0
    _wait_for(mark)
    assert liveness.living(root, frozenset({"s1"}))
    assert not liveness.living(root, frozenset({"another session"}))
    _until_dead(root, frozenset({"s1"}))
    assert not list(liveness.records_dir(root).glob("*.json"))


def test_a_namespace_of_its_own_does_not_hide_a_process(root: Path) -> None:
    """``unshare -U`` makes a user namespace inside the command's: a child of it."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("no unshare(1) here")
    probe = subprocess.run(
        [bwrap.binary() or "", "--ro-bind", "/", "/", "--unshare-user", "--", unshare, "-U",
         "true"], capture_output=True, check=False,
    )  # fmt: skip
    if probe.returncode != 0:
        pytest.skip("nested user namespaces are not allowed here")
    mark, inside = root / "up", root / "inside"
    code = f"import time; open({str(inside)!r}, 'w'); time.sleep(3)"
    inner = f"{unshare} -U {sys.executable} -c {_quote(code)}"
    then = f"os.execv('/bin/sh', ['sh', '-c', {inner!r}])"
    assert _run(root, "s1", _detached(3, str(mark), then)) == 0
    _wait_for(inside)
    assert liveness.living(root, frozenset({"s1"}))
    _until_dead(root, frozenset({"s1"}))


def test_the_workspaces_key_finds_what_a_launcher_without_a_session_started(
    root: Path,
) -> None:
    """Given the workspace through a link, the launcher notes it by its real path, as
    the hooks ask for it."""
    link = root.parent / "link"
    link.symlink_to(root)
    assert _run(link, str(link), _detached(2, str(link / "up"))) == 0
    _wait_for(root / "up")
    assert liveness.living(root, frozenset({"s1", str(root)}))
    _until_dead(root, frozenset({str(root)}))


def test_the_note_is_where_no_command_can_write(root: Path) -> None:
    """A command cannot forge or remove its own note: the effects' state is read-only
    in the sandbox."""
    mark = root / "up"
    folder = liveness.records_dir(root)
    forge = f"rm -f {folder}/*.json; echo '{{}}' > {folder}/1.json; "
    _run(root, "s1", forge + _detached(2, str(mark)))
    _wait_for(mark)
    assert liveness.living(root, frozenset({"s1"}))
    assert not (folder / "1.json").exists()
    _until_dead(root, frozenset({"s1"}))


def test_the_probe_notes_nothing(root: Path) -> None:
    assert bwrap.works() == (True, "")
    assert not liveness.records_dir(root).exists()


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_the_barrier_notes_what_it_leaves_running_for_the_session_the_hook_named(
    root: Path, agent: str
) -> None:
    """Codex's and Gemini's commands, as the hook rewrote them: the barrier ``exec``s
    bubblewrap, and a helper it forked first notes the namespace, for that session only
    (another session of the same agent on the workspace has none of its own alive)."""
    from intent_ls.agents.barrier import wrap
    from intent_ls.agents.effects.lingering import keys
    from intent_ls.agents.events import HookEvent, Phase

    mark = root / "up"
    command = wrap(sys.executable, root, _detached(3, str(mark)), session="s-one")
    done = subprocess.run([BASH, "-c", command], cwd=root, check=False)
    assert done.returncode == 0
    _wait_for(mark)

    def event(session: str) -> HookEvent:
        return HookEvent(agent, Phase.AFTER_TOOL, session, str(root))

    assert liveness.living(root, keys(root, event("s-one")))
    assert not liveness.living(root, keys(root, event("s-two")))
    _until_dead(root, keys(root, event("s-one")))


def test_the_form_a_model_writes_itself_is_the_workspaces(root: Path) -> None:
    """Qwen Code's model writes the barrier's form itself, with no session in it: what
    it leaves running counts for each Qwen session on the workspace."""
    from intent_ls.agents.barrier import wrap
    from intent_ls.agents.effects.lingering import keys
    from intent_ls.agents.events import HookEvent, Phase

    mark = root / "up"
    done = subprocess.run(
        [BASH, "-c", wrap(sys.executable, root, _detached(3, str(mark)))], cwd=root, check=False
    )
    assert done.returncode == 0
    _wait_for(mark)
    any_session = keys(root, HookEvent("qwen", Phase.AFTER_TOOL, "q-any", str(root)))
    assert liveness.living(root, any_session)
    _until_dead(root, any_session)


def test_the_mcp_tool_stops_what_commands_left_running(root: Path) -> None:
    """A later command cannot signal them (each command's signals stay inside its own
    sandbox); intent-ls's MCP server, outside every sandbox, can."""
    from intent_ls.agents.mcp import Handshake

    (root / ".orchestration").mkdir()
    (root / ".orchestration" / "active_intents.yaml").write_text("active_intents: []\n")
    mark = root / "up"
    assert _run(root, "s1", _detached(60, str(mark))) == 0
    _wait_for(mark)
    assert liveness.living(root, frozenset({"s1"}))
    told = Handshake(root).stop_processes()
    assert told.startswith("Stopped 1 process ")
    assert not liveness.living(root, frozenset({"s1"}))
    assert Handshake(root).stop_processes().startswith("No process")


def test_a_namespace_number_used_again_is_not_the_ended_commands(root: Path) -> None:
    """The kernel gives a freed namespace's inode number to the next namespace made
    anywhere: a command of another session started after this one ended must not make
    this one look alive (the namespaces' ids, never reused, tell them apart)."""
    assert _run(root, "ended", "true") == 0  # its note stays until a scan
    [note] = liveness.records_dir(root).glob("*.json")
    mark = root / "up"
    assert _run(root, "other", _detached(3, str(mark))) == 0
    _wait_for(mark)
    assert liveness.living(root, frozenset({"other"}))
    assert not liveness.living(root, frozenset({"ended"}))
    assert not note.exists()
    _until_dead(root, frozenset({"other"}))
