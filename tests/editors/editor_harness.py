"""Helpers for the real-editor tests: each test skips when its editor is absent."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
EDITORS = REPO / "editors"
#: The server as the editors start it: this interpreter, so the venv's intent_ls is used.
SERVER_CMD = [sys.executable, "-m", "intent_ls", "serve"]


def require_binary(name: str, install_hint: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed ({install_hint})")
    return path


@dataclass
class Run:
    result: dict
    seconds: float
    stdout: str
    stderr: str


def run_editor(
    argv: list[str], env_extra: dict[str, str], result_file: Path, timeout: float, cwd: Path
) -> Run:
    """Runs a scripted editor session; fails the test with its output when it fails, or
    when the server wrote a traceback to its stderr (which the editor would only keep
    in a log nobody reads)."""
    server_log = result_file.with_name(result_file.name + ".server-stderr")
    logged = ["/bin/sh", "-c", f'exec "$@" 2>>{shlex.quote(str(server_log))}', "sh"]
    env = {
        **os.environ,
        **env_extra,
        "INTENT_LS_RESULT": str(result_file),
        "INTENT_LS_CMD": json.dumps([*logged, *SERVER_CMD]),
    }
    start = time.monotonic()
    try:
        proc = subprocess.run(
            argv,
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{argv[0]} did not finish in {timeout} s:\n{exc.stdout}\n{exc.stderr}")
    seconds = time.monotonic() - start
    result = json.loads(result_file.read_text()) if result_file.exists() else {}
    if proc.returncode != 0 or not result.get("ok"):
        pytest.fail(
            f"{argv[0]} exited {proc.returncode}; result {json.dumps(result, indent=1)}\n"
            f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
        )
    server_stderr = server_log.read_text(errors="replace") if server_log.exists() else ""
    assert "Traceback" not in server_stderr, server_stderr[-4000:]
    return Run(result, seconds, proc.stdout, proc.stderr)


def editor_env(tmp_path: Path) -> dict[str, str]:
    """Keeps the editors' caches, state and config inside the test's folder."""
    home = tmp_path / "home"
    for sub in ("cache", "data", "config", "state"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_STATE_HOME": str(home / "state"),
    }
