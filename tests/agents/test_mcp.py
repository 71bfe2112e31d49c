"""``intent-ls mcp`` over real stdio: the handshake tools as an agent calls them."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from intent_ls.agents.mcp import Handshake


class Client:
    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "intent_ls", "mcp", "--workspace", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}})
        assert self.proc.stdout is not None
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.next_id:
                return reply

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def test_handshake_over_stdio(governed: Path) -> None:
    started = time.perf_counter()
    client = Client(governed)
    try:
        init = client.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        )
        print(f"\nintent-ls mcp: spawn -> initialize reply {time.perf_counter() - started:.2f} s")
        assert init["result"]["serverInfo"]["name"] == "intent-ls"
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = client.request("tools/list")["result"]["tools"]
        assert {t["name"] for t in tools} == {
            "select_active_intent",
            "list_intents",
            "record_lesson",
            "stop_background_processes",
        }
        assert all("outputSchema" not in t for t in tools)  # plain text, never {"result": …}
        listing = client.request("tools/call", {"name": "list_intents", "arguments": {}})
        text = listing["result"]["content"][0]["text"]
        assert "INT-APP | Application | IN_PROGRESS | src/" in text and "INT-OLD" not in text
        refused = client.request(
            "tools/call", {"name": "select_active_intent", "arguments": {"intent_id": "INT-OLD"}}
        )["result"]
        assert refused["isError"] is True
        message = refused["content"][0]["text"]
        assert "COMPLETED" in message and "INT-APP | Application" in message
        early = client.request("tools/call", {"name": "record_lesson", "arguments": {"text": "x"}})
        assert early["result"]["isError"] is True
        chosen = client.request(
            "tools/call", {"name": "select_active_intent", "arguments": {"intent_id": "INT-APP"}}
        )["result"]
        assert chosen["isError"] is False and "structuredContent" not in chosen
        assert chosen["content"][0]["text"].startswith('<intent_context id="INT-APP">')
        lesson = client.request(
            "tools/call", {"name": "record_lesson", "arguments": {"text": "Keep tests fast"}}
        )["result"]
        assert lesson["isError"] is False
        brain = (governed / ".orchestration" / "CLAUDE.md").read_text()
        assert "## Lessons: INT-APP" in brain and "Keep tests fast" in brain
    finally:
        client.close()


def test_broken_spec_is_a_tool_error(governed: Path) -> None:
    (governed / ".orchestration" / "active_intents.yaml").write_text("active_intents: [\n")
    logic = Handshake(governed)
    try:
        logic.select("INT-APP")
    except LookupError as exc:
        assert "cannot be used" in str(exc)
    else:
        raise AssertionError("a broken spec must refuse the selection")


def test_an_agent_that_closes_its_end_ends_the_session_without_a_traceback(
    governed: Path,
) -> None:
    """An agent that quits while an answer is being written (seen from the real Claude
    Code under load) leaves the server writing to a closed pipe: it exits 0, quietly."""
    client = Client(governed)
    assert client.proc.stdout is not None and client.proc.stderr is not None
    client.proc.stdout.close()
    client.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        }
    )
    client.close()
    stderr = client.proc.stderr.read().decode()
    assert client.proc.returncode == 0, stderr
    assert "Traceback" not in stderr
