"""editors/vscode in real VS Code: this repository's .vsix installed into code-server 4.100.3
(VS Code 1.100.3), driven in headless Debian chromium by tests/editors/vscode_flow.mjs.

code-server and playwright-core come from `.ci/install-vscode` (which CI runs); the test
skips with that hint when they are absent. The .vsix is packaged from the working tree on
every run, so the test always exercises the extension as committed here.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
import pytest
from editor_harness import EDITORS, HERE, editor_env, require_binary, run_editor

VSCODE = EDITORS / "vscode"
INSTALL_DIR = Path(os.environ.get("INTENT_LS_VSCODE_DIR", "/opt/intent-ls-vscode"))
STARTUP_TIMEOUT = 60.0


def _code_server() -> Path:
    binary = INSTALL_DIR / "node_modules" / ".bin" / "code-server"
    if not binary.exists():
        pytest.skip(f"code-server is not installed in {INSTALL_DIR} (run .ci/install-vscode)")
    return binary


def _package(tmp_path: Path, source: Path = VSCODE) -> Path:
    """Builds a .vsix from the working tree (for the extension: its schema from
    `intent-ls schema`). It builds in a copy, so parallel test workers never write the
    same dist/ and schemas/."""
    modules = VSCODE / "node_modules"
    vsce = modules / ".bin" / "vsce"
    if not vsce.exists():
        pytest.skip("the extension's build tools are not installed (npm ci in editors/vscode)")
    vsix = tmp_path / f"{source.name}.vsix"
    build = tmp_path / f"{source.name}-build"
    shutil.copytree(
        source, build, ignore=shutil.ignore_patterns("node_modules", "dist", "schemas", "*.vsix")
    )
    if source == VSCODE:
        (build / "node_modules").symlink_to(modules, target_is_directory=True)
    env = {**os.environ, "INTENT_LS": os.environ.get("INTENT_LS") or _intent_ls()}
    proc = subprocess.run(
        [
            str(vsce),
            "package",
            "--no-dependencies",
            "--allow-missing-repository",
            "--skip-license",
            "-o",
            str(vsix),
        ],
        cwd=build,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0:
        pytest.fail(f"vsce package failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return vsix


def _intent_ls() -> str:
    beside = Path(sys.executable).parent / "intent-ls"
    return str(beside) if beside.exists() else "intent-ls"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _running(argv: list[str], env: dict[str, str], log: Path, port: int) -> Iterator[None]:
    """code-server in its own process group, stopped as a whole (extension hosts and
    language servers outlive the browser otherwise)."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"code-server did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.2)
        yield
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="module")
def vsix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _code_server()
    return _package(tmp_path_factory.mktemp("vsix"))


@attrs.frozen
class Session:
    result: dict[str, Any]
    seconds: float
    data: Path

    def log(self, pattern: str) -> str:
        """The text of the one user-data log file matching ``pattern``."""
        [path] = (self.data / "logs").glob(pattern)
        return path.read_text()


def run_vscode(
    vsix: Path,
    folder: Path,
    tmp_path: Path,
    flow: str,
    settings: dict[str, Any],
    also_install: Sequence[Path] = (),
    env_extra: dict[str, str] | None = None,
) -> Session:
    """Installs ``vsix`` (and ``also_install``) into a fresh code-server profile, opens
    ``folder`` in chromium and runs ``flow`` of vscode_flow.mjs against it."""
    code_server = _code_server()
    chromium = require_binary("chromium", "apt-get install -y chromium (.ci/install-vscode)")
    node = require_binary("node", "apt-get install -y nodejs")
    # Chromium and code-server put Unix sockets in TMPDIR, and a socket path is limited to
    # 107 bytes: pytest's tmp_path (long test names, high run numbers) can exceed it.
    short_tmp = Path(tempfile.mkdtemp(prefix="ils-", dir="/tmp"))
    try:
        env = {
            **os.environ,
            **editor_env(tmp_path),
            "TMPDIR": str(short_tmp),
            # As when launched from a terminal: the extension host gets this environment, not
            # one resolved from a login shell (which would reset PATH).
            "VSCODE_CLI": "1",
            **(env_extra or {}),
        }
        data, extensions = tmp_path / "user-data", tmp_path / "extensions"
        profile = ["--user-data-dir", str(data), "--extensions-dir", str(extensions)]
        for package in (vsix, *also_install):
            installed = subprocess.run(
                [str(code_server), *profile, "--install-extension", str(package)],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert installed.returncode == 0, installed.stdout + installed.stderr
        (data / "User").mkdir(parents=True, exist_ok=True)
        (data / "User" / "settings.json").write_text(json.dumps({**QUIET_WORKBENCH, **settings}))
        port = _free_port()
        shots = tmp_path / "shots"
        shots.mkdir()
        argv = [
            str(code_server),
            *("--bind-addr", f"127.0.0.1:{port}", "--auth", "none"),
            *("--disable-telemetry", "--disable-update-check", "--disable-workspace-trust"),
            *profile,
            str(folder),
        ]
        with _running(argv, env, tmp_path / "code-server.log", port):
            run = run_editor(
                [node, str(HERE / "vscode_flow.mjs")],
                {
                    **env,
                    "INTENT_LS_FLOW": flow,
                    "INTENT_LS_URL": f"http://127.0.0.1:{port}/?folder={folder}",
                    "INTENT_LS_WS": str(folder),
                    "INTENT_LS_VSCODE_DIR": str(INSTALL_DIR),
                    "INTENT_LS_CHROMIUM": chromium,
                    "INTENT_LS_SHOTS": str(shots),
                },
                tmp_path / "vscode-result.json",
                timeout=300,
                cwd=tmp_path,
            )
        return Session(run.result, run.seconds, data)
    finally:
        shutil.rmtree(short_tmp, ignore_errors=True)


QUIET_WORKBENCH: dict[str, Any] = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "editor.quickSuggestions": {"other": False, "comments": False, "strings": False},
    "editor.acceptSuggestionOnEnter": "off",
    "files.autoSave": "off",
}
SERVER = {"intentLs.serverCommand": [sys.executable, "-m", "intent_ls"]}


def _noisy_server(tmp_path: Path) -> str:
    """The real server behind a wrapper that first logs three stderr lines the way
    `intent-ls serve` formats its records: a warning with a continuation line, an error."""
    wrapper = tmp_path / "noisy-intent-ls"
    wrapper.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = serve ]; then\n'
        "  printf 'WARNING intent_ls.test: before serving\\n  continued detail\\n"
        "ERROR intent_ls.test: a failure\\n' >&2\n"
        "fi\n"
        f'exec "{sys.executable}" -m intent_ls "$@"\n'
    )
    wrapper.chmod(0o755)
    return str(wrapper)


def test_vscode_flow(vsix: Path, workspace: Path, tmp_path: Path) -> None:
    settings = {
        "intentLs.serverCommand": _noisy_server(tmp_path),
        "intentLs.ledger": {"fsync": False, "mapDelay": 0.2},
        "intentLs.trace.server": "messages",
    }
    run = run_vscode(vsix, workspace, tmp_path, "governed", settings)
    r = run.result
    assert r["status_initial"].endswith("no intent · awaiting selection")
    # The IN_PROGRESS intents to select first.
    assert [t[:7] for t in r["quick_pick"][:2]] == ["INT-001", "INT-002"]
    # Then the DRAFT one to start, then the report (offered from the same status item).
    [start, report] = r["quick_pick"][2:]
    assert start.strip().startswith("Start intent INT-003"), r["quick_pick"]
    assert "Open intent report" in report, r["quick_pick"]
    assert r["status_selected"].endswith("INT-001 · context loaded")
    # One truth: typing the out-of-scope edit shows it as blocked in the status bar too.
    assert r["status_blocked"].endswith("INT-001 · blocked")
    assert any("out-of-scope" in row for row in r["problems"]), r["problems"]
    assert any(t.startswith("Switch to intent INT-002") for t in r["quick_fixes"]), r["quick_fixes"]
    assert r["status_switched"].endswith("INT-002 · context loaded")
    assert r["record"] == {"path": "src/api/routes.py", "intent": "INT-002", "kind": "mutation"}
    assert "INT-002" in r["hover"]
    # The case: switching intents with an out-of-scope edit open says blocked, as
    # typing there would, not "context loaded".
    assert r["status_allowed"].endswith("INT-002 · allowed")
    assert r["status_after_switch"].endswith("INT-001 · blocked")
    view = r["intents_view"]
    assert any(t.startswith("INT-002: Order API pagination") for t in view), view
    assert any(t.startswith("src/api/routes.py") for t in view), view
    assert any(t.startswith("list_orders") for t in view), view
    # Completing the active intent from the status item: the server asks, then edits the spec.
    lifecycle = [t.strip() for t in r["lifecycle_pick"]]
    assert any(t.startswith("Complete intent INT-001") for t in lifecycle), lifecycle
    assert any(t.startswith("Start intent INT-003") for t in lifecycle), lifecycle
    assert "Complete INT-001" in r["confirmation"]
    assert "status: COMPLETED" in r["completed_intent"]
    assert r["start_pick"].startswith("Start intent INT-003"), r["start_pick"]
    assert "status: IN_PROGRESS" in r["started_intent"]
    spec = (workspace / ".orchestration" / "active_intents.yaml").read_text()
    assert "status: IN_PROGRESS" in spec.split("- id: INT-002")[1].split("- id:")[0]
    # Logs once, at their level; the LSP trace in its own channel, from the setting alone.
    lines = run.log("*/exthost*/intent-ls.intent-ls/intent-ls.log").splitlines()
    assert sum("intent-ls: using" in line for line in lines) == 1, lines
    stderr = [
        line.split(" ", 2)[2] for line in lines if "intent_ls.test" in line or "detail" in line
    ]
    assert stderr == [
        "[warning] intent_ls.test: before serving",
        "[warning]   continued detail",
        "[error] intent_ls.test: a failure",
    ], lines
    traced = run.log("*/exthost*/output_logging_*/*intent-ls LSP trace.log")
    assert "Sending request 'initialize" in traced
    assert "Received notification 'intent/status'" in traced
    print(f"vscode flow: {run.seconds:.1f} s; steps {r['steps']}")


def test_vscode_stays_quiet_in_a_folder_that_is_not_governed(vsix: Path, tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "main.py").write_text("print('hi')\n")
    run = run_vscode(vsix, folder, tmp_path, "quiet", SERVER)
    r = run.result
    # Activated (its command ran), yet no status item and no popup until asked.
    assert r["toasts_before_command"] == []
    assert r["status_items"] == []
    [answer] = r["toasts_after_command"]
    assert "the server is not running" in answer
    assert "intentLs.startEverywhere" in answer
    assert r["status_items_after"] == []
    assert not (folder / ".orchestration").exists()


def test_vscode_without_a_server_says_so_once(vsix: Path, workspace: Path, tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-intent-ls")
    run = run_vscode(
        vsix, workspace, tmp_path, "missing-server", {"intentLs.serverCommand": missing}
    )
    [toast] = run.result["toasts"]
    assert "the language server was not found" in toast
    assert "intentLs.serverCommand" in toast
    assert missing in toast
    lines = run.log("*/exthost*/intent-ls.intent-ls/intent-ls.log").splitlines()
    assert sum("cannot use" in line for line in lines) == 1, lines


def test_vscode_without_any_server_says_so_once(
    vsix: Path, workspace: Path, tmp_path: Path
) -> None:
    env = {"PATH": _path_without_intent_ls()}
    run = run_vscode(vsix, workspace, tmp_path, "missing-server", {}, (), env)
    [toast] = run.result["toasts"]
    assert "the language server was not found" in toast
    assert "intent-ls (from PATH)" in toast
    lines = run.log("*/exthost*/intent-ls.intent-ls/intent-ls.log").splitlines()
    assert sum("cannot use" in line for line in lines) == 1, lines


def _path_without_intent_ls() -> str:
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(d for d in dirs if d and not (Path(d) / "intent-ls").exists())


@pytest.mark.parametrize("source", ["python-extension", "path"])
def test_vscode_finds_the_server_without_a_setting(
    vsix: Path, workspace: Path, tmp_path: Path, source: str
) -> None:
    clean = _path_without_intent_ls()
    if source == "python-extension":
        fake = _package(tmp_path, HERE / "fake_python_extension")
        env = {"PATH": clean, "INTENT_LS_TEST_PYTHON": sys.executable}
        run = run_vscode(vsix, workspace, tmp_path, "started", {}, [fake], env)
        expected = f"using {sys.executable} -m intent_ls serve (from the Python extension's"
    else:
        venv_bin = Path(sys.executable).parent
        if not (venv_bin / "intent-ls").exists():
            pytest.skip(f"no intent-ls script beside {sys.executable}")
        env = {"PATH": os.pathsep.join([str(venv_bin), clean])}
        run = run_vscode(vsix, workspace, tmp_path, "started", {}, (), env)
        expected = "using intent-ls serve (from PATH)"
    assert run.result["status_initial"].endswith("no intent · awaiting selection")
    log = run.log("*/exthost*/intent-ls.intent-ls/intent-ls.log")
    assert expected in log, log
