"""An agent's MCP server entry: it starts, and answers ``initialize`` (timed)."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

from intent_ls import __version__

#: Seconds the server gets to answer: agents wait about this long for a server to start.
TIMEOUT_S = 30.0
_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "intent-ls-doctor", "version": __version__},
    },
}


@attrs.frozen
class Answer:
    #: The server's name from its ``initialize`` result; None when it did not answer.
    server: str | None
    ms: float
    error: str = ""


def initialize(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float = TIMEOUT_S
) -> Answer:
    start = time.perf_counter()
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return Answer(None, 0.0, f"could not start {argv[0]}: {exc.strerror or exc}")
    try:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(_INITIALIZE).encode() + b"\n")
            proc.stdin.flush()
        except OSError:
            pass  # it exited already: its status and stderr say why
        found = _response(proc, start + timeout, timeout)
        ms = (time.perf_counter() - start) * 1000
        if isinstance(found, str):
            return Answer(None, ms, found)
        result = found.get("result")
        info = result.get("serverInfo") if isinstance(result, dict) else None
        if not isinstance(info, dict):
            error = found.get("error")
            return Answer(None, ms, f"answered initialize with an error: {error}")
        return Answer(str(info.get("name", "?")), ms)
    finally:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()


def _response(
    proc: subprocess.Popen[bytes], deadline: float, timeout: float
) -> dict[str, object] | str:
    """The JSON-RPC answer with id 1, or why there is none. Its stderr is drained as it
    comes, so a talkative server cannot block on a full pipe."""
    assert proc.stdout is not None and proc.stderr is not None
    buffer = b""
    errors = b""
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        selector.register(proc.stderr, selectors.EVENT_READ)
        while (left := deadline - time.perf_counter()) > 0:
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 65536)
                if key.fileobj is proc.stderr:
                    errors = (errors + chunk)[-4096:]
                    if not chunk:
                        selector.unregister(proc.stderr)
                    continue
                if not chunk:
                    return _exited(proc, errors)
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    try:
                        message = json.loads(line)
                    except ValueError:
                        return f"printed something that is not JSON-RPC: {line[:80]!r}"
                    if isinstance(message, dict) and message.get("id") == 1:
                        return message
    return f"no answer to initialize within {timeout:g} s"


def _exited(proc: subprocess.Popen[bytes], errors: bytes) -> str:
    status = proc.wait()
    lines = [x for x in errors.decode("utf-8", "replace").splitlines() if x.strip()]
    return f"exited ({status}) before answering" + (f": {lines[-1].strip()[:200]}" if lines else "")
