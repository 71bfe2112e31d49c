"""The scripted Chat Completions endpoint answers as an OpenAI-compatible provider does,
streamed and not: the real CLIs' tests (Qwen Code, OpenCode, Copilot CLI) stand on it."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.agents.scripted_model import ScriptedChat, serve_chat, tool


def post(url: str, body: dict[str, Any]) -> bytes:
    request = urllib.request.Request(
        f"{url}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read()


def offering(name: str, **extra: Any) -> dict[str, Any]:
    tools = [{"type": "function", "function": {"name": name, "parameters": {}}}]
    return {"model": "scripted", "messages": [], "tools": tools, **extra}


def test_the_main_loop_gets_each_turn_in_order_and_side_requests_get_text() -> None:
    model = ScriptedChat([tool(1, "write_file", file_path="a.py"), "finished"], "write_file")
    with serve_chat(model) as url:
        side = json.loads(post(url, {"model": "scripted", "messages": []}))
        first = json.loads(post(url, offering("write_file")))
        second = json.loads(post(url, offering("write_file")))
    assert side["choices"][0]["message"]["content"] == "ok"
    call = first["choices"][0]["message"]["tool_calls"][0]
    assert first["choices"][0]["finish_reason"] == "tool_calls"
    assert (call["id"], call["function"]["name"]) == ("toolu_01", "write_file")
    assert json.loads(call["function"]["arguments"]) == {"file_path": "a.py"}
    assert second["choices"][0]["message"]["content"] == "finished"
    assert len(model.main_requests) == 2


def test_a_streamed_turn_is_chunks_ending_in_done() -> None:
    model = ScriptedChat([tool(1, "edit", path="b.py")], "edit")
    with serve_chat(model) as url:
        raw = post(url, offering("edit", stream=True)).decode()
    events = [line.removeprefix("data: ") for line in raw.split("\n\n") if line]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    delta = chunks[0]["choices"][0]["delta"]
    assert delta["tool_calls"][0]["function"]["name"] == "edit"
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_tool_results_are_the_tool_messages_of_the_last_request() -> None:
    model = ScriptedChat([], "edit")
    messages = [
        {"role": "user", "content": "go"},
        {"role": "tool", "tool_call_id": "toolu_01", "content": "refused"},
    ]
    with serve_chat(model) as url:
        post(url, {**offering("edit"), "messages": messages})
    assert model.tool_results() == [messages[1]]
