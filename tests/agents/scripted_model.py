"""A scripted Anthropic Messages endpoint on 127.0.0.1, so the real Claude Code CLI runs
its real tool loop, hooks and MCP servers offline (``../shared/design/real-agents.md``).

A request whose tool list offers ``Write`` is the *main loop*: it gets the next scripted
turn (one tool call, or a final text). Every other request (titles, summaries) gets a
short text; ``count_tokens`` gets a count. Every main-loop request is logged, so a test
reads what the model saw: the ``tool_result`` of each scripted call.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Turn = dict[str, Any] | str | Callable[[], dict[str, Any] | str]


class ScriptedModel:
    def __init__(self, turns: list[Turn]) -> None:
        self.turns = list(turns)
        self.main_requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def next_turn(self, body: dict[str, Any]) -> dict[str, Any] | str:
        """The next turn; a callable one is called first, outside the lock (a test that
        waits for something to happen on disk before the model's next call)."""
        with self.lock:
            self.main_requests.append(body)
            turn = self.turns.pop(0) if self.turns else "done"
        return turn() if callable(turn) else turn

    def tool_results(self) -> list[dict[str, Any]]:
        """Every ``tool_result`` block the model received, in order (the last request
        carries the whole conversation)."""
        if not self.main_requests:
            return []
        out = []
        for message in self.main_requests[-1].get("messages", []):
            content = message.get("content")
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append(block)
        return out


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(c.get("text", "") for c in content or () if isinstance(c, dict))


class _Quiet(BaseHTTPRequestHandler):
    """A scripted endpoint's handler: no request log, and a JSON answer in one call."""

    def log_message(self, *args: Any) -> None:
        pass

    def _json(self, value: dict[str, Any]) -> None:
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _handler(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(_Quiet):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if "count_tokens" in self.path:
                self._json({"input_tokens": 1})
                return
            tools = {t.get("name") for t in body.get("tools") or () if isinstance(t, dict)}
            turn: dict[str, Any] | str = "ok"
            if "Write" in tools:
                turn = model.next_turn(body)
            message: dict[str, Any] = {
                "id": "msg_scripted",
                "type": "message",
                "role": "assistant",
                "model": body.get("model"),
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            }
            if isinstance(turn, str):
                block: dict[str, Any] = {"type": "text", "text": turn}
                stop = "end_turn"
            else:
                block = {
                    "type": "tool_use",
                    "id": turn["id"],
                    "name": turn["name"],
                    "input": turn["input"],
                }
                stop = "tool_use"
            if not body.get("stream"):
                self._json({**message, "content": [block], "stop_reason": stop})
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()

            def event(kind: str, data: dict[str, Any]) -> None:
                self.wfile.write(
                    f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()
                )

            event("message_start", {"message": message})
            if block["type"] == "text":
                event(
                    "content_block_start",
                    {"index": 0, "content_block": {"type": "text", "text": ""}},
                )
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                event("content_block_start", {"index": 0, "content_block": {**block, "input": {}}})
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            event("content_block_delta", {"index": 0, "delta": delta})
            event("content_block_stop", {"index": 0})
            event(
                "message_delta",
                {
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            )
            event("message_stop", {})
            self.wfile.flush()

    return Handler


@contextmanager
def _serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serves ``handler`` on 127.0.0.1; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def serve(model: ScriptedModel) -> AbstractContextManager[str]:
    """Serves ``model`` as the Anthropic Messages API; the context yields the base URL."""
    return _serving(_handler(model))


def tool(n: int, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": f"toolu_{n:02d}", "name": name, "input": arguments}


class ScriptedGemini(ScriptedModel):
    """The Gemini API side: ``:streamGenerateContent`` offering ``write_file`` is the main
    loop; ``:generateContent`` side requests (routing) get a JSON value filling their
    ``responseJsonSchema``. ``main_tool``: the tool whose offer marks the main loop (in
    the default approval mode, headless, Gemini CLI offers no ``write_file``)."""

    def __init__(self, turns: list[dict[str, Any] | str], main_tool: str = "write_file") -> None:
        super().__init__(turns)
        self.main_tool = main_tool

    def tool_results(self) -> list[dict[str, Any]]:
        if not self.main_requests:
            return []
        out = []
        for content in self.main_requests[-1].get("contents", []):
            for part in content.get("parts") or ():
                if isinstance(part, dict) and "functionResponse" in part:
                    out.append(part["functionResponse"])
        return out


def _fill(schema: dict[str, Any]) -> Any:
    kind = str(schema.get("type", "string")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        return {k: _fill(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "x"


def _gemini_handler(model: ScriptedGemini) -> type[BaseHTTPRequestHandler]:
    class Handler(_Quiet):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
            names = {
                f.get("name")
                for t in body.get("tools") or ()
                for f in t.get("functionDeclarations") or ()
            }
            if ":generateContent" in self.path:
                config = body.get("generationConfig") or {}
                schema = config.get("responseJsonSchema") or config.get("responseSchema")
                text = json.dumps(_fill(schema)) if schema else "ok"
                parts: list[dict[str, Any]] = [{"text": text}]
            else:
                # The model is named in the URL (``models/<model>:streamGenerateContent``).
                body["model"] = self.path.split("/models/", 1)[-1].split(":", 1)[0]
                turn = model.next_turn(body) if model.main_tool in names else "ok"
                if isinstance(turn, str):
                    parts = [{"text": turn}]
                else:
                    call = {"name": turn["name"], "args": turn["input"], "id": turn["id"]}
                    parts = [{"functionCall": call}]
            answer = {
                "candidates": [
                    {"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}
                ],
                "usageMetadata": usage,
            }
            data = json.dumps(answer).encode()
            self.send_response(200)
            if ":generateContent" in self.path:
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b"data: " + data + b"\n\n")
            self.wfile.flush()

    return Handler


def serve_gemini(model: ScriptedGemini) -> AbstractContextManager[str]:
    return _serving(_gemini_handler(model))


class ScriptedCodex(ScriptedModel):
    """The OpenAI Responses API side for Codex CLI: a request offering ``apply_patch`` is
    the main loop. A scripted turn is a ``custom_tool_call`` (``apply_patch``: the patch
    is the ``input``), a ``function_call`` (JSON ``arguments``; MCP tools carry their
    ``namespace``), or a final message.

    Codex defers MCP tools behind ``tool_search``, and its MCP servers start in the
    background: before a scripted MCP call the model searches until the search result
    lists the call's namespace (the server is up), as a real model would search again."""

    MAX_SEARCHES = 200

    def __init__(self, turns: list[dict[str, Any] | str]) -> None:
        super().__init__(turns)
        self.searches = 0

    def next_turn(self, body: dict[str, Any]) -> dict[str, Any] | str:
        with self.lock:
            upcoming = self.turns[0] if self.turns else None
            namespace = upcoming.get("namespace") if isinstance(upcoming, dict) else None
            if namespace and not _discovered(body, namespace):
                self.main_requests.append(body)
                self.searches += 1
                if self.searches > self.MAX_SEARCHES:
                    raise RuntimeError(f"{namespace} never appeared in tool_search")
                query = {"query": str(upcoming["name"]) if upcoming else ""}
                return {"id": f"search_{self.searches}", "name": "tool_search", "input": query}
        return super().next_turn(body)

    def tool_results(self) -> list[dict[str, Any]]:
        if not self.main_requests:
            return []
        return [
            item
            for item in self.main_requests[-1].get("input", [])
            if isinstance(item, dict) and str(item.get("type", "")).endswith("_output")
        ]


def codex_shell(n: int, command: str) -> dict[str, Any]:
    """A scripted Codex turn: its shell tool runs ``command``."""
    return {"id": f"call_{n:02d}", "name": "exec_command", "input": {"cmd": command}}


def codex_patch(n: int, *lines: str) -> dict[str, Any]:
    """A scripted Codex turn: ``apply_patch`` with the envelope around ``lines``."""
    patch = "\n".join(["*** Begin Patch", *lines, "*** End Patch", ""])
    return {"id": f"call_{n:02d}", "name": "apply_patch", "input": {"patch": patch}}


def codex_mcp(n: int, name: str, **arguments: Any) -> dict[str, Any]:
    """A scripted Codex turn: intent-ls's MCP tool ``name``."""
    return {"id": f"call_{n:02d}", "name": name, "namespace": "mcp__intent_ls", "input": arguments}


def _discovered(body: dict[str, Any], namespace: str) -> bool:
    return any(
        isinstance(item, dict)
        and item.get("type") == "tool_search_output"
        and any(t.get("name") == namespace for t in item.get("tools") or ())
        for item in body.get("input") or ()
    )


def codex_item(turn: dict[str, Any] | str) -> dict[str, Any]:
    if isinstance(turn, str):
        return {
            "type": "message",
            "role": "assistant",
            "id": "msg_scripted",
            "status": "completed",
            "content": [{"type": "output_text", "text": turn, "annotations": []}],
        }
    if turn["name"] == "tool_search":
        return {
            "type": "tool_search_call",
            "id": f"ts_{turn['id']}",
            "call_id": turn["id"],
            "execution": "client",
            "arguments": turn["input"],
            "status": "completed",
        }
    if turn["name"] == "apply_patch":
        return {
            "type": "custom_tool_call",
            "id": f"ctc_{turn['id']}",
            "call_id": turn["id"],
            "name": "apply_patch",
            "input": turn["input"]["patch"],
            "status": "completed",
        }
    item = {
        "type": "function_call",
        "id": f"fc_{turn['id']}",
        "call_id": turn["id"],
        "name": turn["name"],
        "arguments": json.dumps(turn["input"]),
        "status": "completed",
    }
    if "namespace" in turn:
        item["namespace"] = turn["namespace"]
    return item


def _codex_handler(model: ScriptedCodex) -> type[BaseHTTPRequestHandler]:
    class Handler(_Quiet):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            names = {t.get("name") for t in body.get("tools") or () if isinstance(t, dict)}
            turn = model.next_turn(body) if "apply_patch" in names else "ok"
            item = codex_item(turn)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            usage = {
                "input_tokens": 1,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 1,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 2,
            }
            for data in (
                {"type": "response.created", "response": {"id": "resp_scripted"}},
                {"type": "response.output_item.added", "output_index": 0, "item": item},
                {"type": "response.output_item.done", "output_index": 0, "item": item},
                {"type": "response.completed", "response": {"id": "resp_scripted", "usage": usage}},
            ):
                self.wfile.write(f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

    return Handler


def serve_codex(model: ScriptedCodex) -> AbstractContextManager[str]:
    return _serving(_codex_handler(model))


class ScriptedChat(ScriptedModel):
    """The OpenAI Chat Completions side, which Qwen Code, OpenCode (and Kilo) and Copilot
    CLI speak to a local provider: a request offering ``main_tool`` (the agent's
    write tool) is the main loop; every other request (titles, summaries, routing) gets
    a short text. A scripted turn (:func:`tool`) becomes one ``tool_calls`` entry whose
    ``arguments`` are the turn's input as JSON."""

    def __init__(self, turns: list[dict[str, Any] | str], main_tool: str) -> None:
        super().__init__(turns)
        self.main_tool = main_tool

    def tool_results(self) -> list[dict[str, Any]]:
        """Every ``role: tool`` message the model received, in order."""
        if not self.main_requests:
            return []
        return [
            message
            for message in self.main_requests[-1].get("messages", [])
            if isinstance(message, dict) and message.get("role") == "tool"
        ]


def chat_message(turn: dict[str, Any] | str) -> tuple[dict[str, Any], str]:
    """The assistant message for ``turn`` and its ``finish_reason``."""
    if isinstance(turn, str):
        return {"role": "assistant", "content": turn}, "stop"
    call = {
        "index": 0,
        "id": turn["id"],
        "type": "function",
        "function": {"name": turn["name"], "arguments": json.dumps(turn["input"])},
    }
    return {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"


def _chat_names(body: dict[str, Any]) -> set[str]:
    return {
        str((t.get("function") or t).get("name"))
        for t in body.get("tools") or ()
        if isinstance(t, dict)
    }


def _chat_handler(model: ScriptedChat) -> type[BaseHTTPRequestHandler]:
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}

    class Handler(_Quiet):
        def do_GET(self) -> None:
            """``/models``: the one model the tests name, as a provider lists it."""
            self._json({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            main = model.main_tool in _chat_names(body)
            message, finish = chat_message(model.next_turn(body) if main else "ok")
            head = {"id": "chatcmpl-scripted", "created": 0, "model": body.get("model")}
            if not body.get("stream"):
                choice = {"index": 0, "message": message, "finish_reason": finish}
                self._json(
                    {**head, "object": "chat.completion", "choices": [choice], "usage": usage}
                )
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            chunk = {**head, "object": "chat.completion.chunk"}
            for choices, extra in (
                ([{"index": 0, "delta": message, "finish_reason": None}], {}),
                ([{"index": 0, "delta": {}, "finish_reason": finish}], {"usage": usage}),
            ):
                data = json.dumps({**chunk, "choices": choices, **extra})
                self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler


def serve_chat(model: ScriptedChat) -> AbstractContextManager[str]:
    """Serves ``model`` as an OpenAI-compatible ``/chat/completions`` (any path prefix:
    ``/v1`` or none); the context yields the base URL without ``/v1``."""
    return _serving(_chat_handler(model))
