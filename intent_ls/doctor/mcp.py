"""An agent's MCP server entry: it is there, names an executable that did not come with
the repository, starts, and answers ``initialize`` (timed)."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from intent_ls import __version__
from intent_ls.agents import MCP_SERVER
from intent_ls.agents.profile import AgentProfile
from intent_ls.doctor.agent_settings import as_checks, own_env
from intent_ls.doctor.commands import brought_by_repository, expand, resolve
from intent_ls.doctor.probe import spawn
from intent_ls.doctor.report import Check, fail, ok

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
    proc = spawn(argv, cwd, env)
    if isinstance(proc, str):
        return Answer(None, 0.0, proc)
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


def _refusal(entry: Any, where: str) -> str | None:
    """Why doctor does not start this entry, or None: it is not there, or runs more than
    ``intent-ls mcp`` as it is."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return (
            f"{where} has no MCP server {MCP_SERVER}: the agent cannot select an "
            "intent, so every write it makes is refused."
        )
    args = entry.get("args")
    argv = [entry["command"], *(args if isinstance(args, list) else [])]
    line = " ".join(shlex.quote(str(w)) for w in argv)
    if own_env(entry):
        why = f"sets its own environment ({', '.join(own_env(entry))})"
    elif argv[1:] != ["mcp"]:
        why = "does not run `intent-ls mcp`"
    else:
        return None
    return f"{where}: `{line}` {why}: doctor does not start it, so cannot prove it answers."


def check_server(
    agent: AgentProfile, root: Path, settings: dict[str, Any], mirror: Path
) -> list[Check]:
    area, install = agent.name, f"run `intent-ls hooks install {agent.name}`."
    where, entry = agent.doctor.mcp_entry(root, settings)
    if isinstance(entry, str):
        return [fail(area, "MCP server", entry, install)]
    refused = _refusal(entry, where)
    if refused is not None:
        return [fail(area, "MCP server", refused, install)]
    argv = [entry["command"], *entry["args"]]
    line = " ".join(shlex.quote(str(w)) for w in argv)
    env = dict(os.environ)
    for name in agent.doctor.mcp_expands:  # the agent expands these in the command itself
        argv[0] = expand(argv[0], {**env, name: str(root)})
    path = resolve(argv[0], root, env)
    if path is None or brought_by_repository(path, root):
        why = (
            "which is not an executable here" if path is None else "which came with this repository"
        )
        return [fail(area, "MCP server", f"{where}: `{line}` names `{argv[0]}`, {why}.", install)]
    env.update(dict.fromkeys(agent.doctor.mcp_env, str(mirror)))
    answer = initialize([str(path), *argv[1:]], mirror, env)
    if answer.server is None:
        return [fail(area, "MCP server", f"`{line}` {answer.error}.", install, answer.ms)]
    checks = [
        ok(
            area,
            "MCP server",
            f"`{line}` ({where}) answered initialize as {answer.server} in {answer.ms:.0f} ms.",
            answer.ms,
        )
    ]
    return checks + as_checks(area, "MCP trust", agent.doctor.mcp_notes(entry, where))
