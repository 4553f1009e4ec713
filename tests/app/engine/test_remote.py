"""`RemoteModel` against real loopback servers.

Two servers: `python -m llama_cpp.server` running the SmolLM2 test model, and a small stdlib
HTTP server that replays scripted bytes for what a real model cannot be made to do on cue
(split native tool calls, bad arguments, a crash mid-reply, HTTP errors).
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from typing import Any, TypeVar

import pytest

from hearth.engine.remote import RemoteModel, normalise_base_url
from hearth.errors import RemoteModelError
from hearth.generation import (
    AnswerDelta,
    ChatModel,
    EngineEvent,
    GenerationDone,
    GenerationSettings,
    MalformedToolCall,
    ReasoningDelta,
    ToolCallEmitted,
)
from hearth.messages import CancelToken, Message, ToolCall, ToolSpec
from tests.fixtures.openai_server import Scripted, ScriptServer

WEATHER = ToolSpec(
    "get_weather",
    "Get the current weather for a city.",
    {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city's name"}},
        "required": ["city"],
    },
)
E = TypeVar("E", bound=EngineEvent)
GREEDY = GenerationSettings(max_tokens=64, temperature=0.0, seed=7)


# --- a scripted OpenAI-compatible server ---------------------------------------------------


@pytest.fixture
def scripted() -> Iterator[ScriptServer]:
    server = ScriptServer()
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield server
    for client in server.clients:
        client.close()
    server.shutdown()
    server.server_close()
    thread.join(5)


def sse(*events: dict[str, Any] | str, done: bool = True) -> list[bytes]:
    """Server-sent events as a server writes them, one event per write."""
    texts = [e if isinstance(e, str) else json.dumps(e) for e in events]
    return [f"data: {text}\n\n".encode() for text in [*texts, *(["[DONE]"] if done else [])]]


def chunk(finish: str | None = None, **delta: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def call_piece(index: int, arguments: str, **first: str) -> dict[str, Any]:
    function = {"arguments": arguments} | ({"name": first["name"]} if "name" in first else {})
    piece: dict[str, Any] = {"index": index, "function": function}
    if "id" in first:
        piece |= {"id": first["id"], "type": "function"}
    return piece


def run(model: ChatModel, *args: Any, **kwargs: Any) -> tuple[list[EngineEvent], GenerationDone]:
    events = list(model.generate(*args, **kwargs))
    assert [type(e) for e in events].count(GenerationDone) == 1
    done = events[-1]
    assert isinstance(done, GenerationDone)
    return events, done


def of_type(events: list[EngineEvent], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def scripted_model(server: ScriptServer, *parts: bytes, **options: Any) -> RemoteModel:
    server.routes["POST /v1/chat/completions"] = Scripted(list(parts), **options)
    return server.client(model="scripted")


# --- the scripted server --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "root"),
    [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1"),
        ("127.0.0.1:8080/", "http://127.0.0.1:8080/v1"),
        ("http://box:11434/v1/", "http://box:11434/v1"),
        ("https://box/v1/chat/completions", "https://box/v1"),
    ],
)
def test_base_url_is_normalised(typed: str, root: str) -> None:
    assert normalise_base_url(typed) == root


def test_base_url_must_be_http() -> None:
    with pytest.raises(RemoteModelError, match="not an http"):
        normalise_base_url("ftp://box")


@pytest.mark.server
def test_native_tool_call_split_over_chunks(scripted: ScriptServer) -> None:
    stream = sse(
        chunk(tool_calls=[call_piece(0, "", id="call_abc", name="get_weather")]),
        chunk(tool_calls=[call_piece(0, '{"ci')]),
        chunk(tool_calls=[call_piece(0, 'ty": "Par')]),
        chunk(tool_calls=[call_piece(0, 'is"}')]),
        chunk("tool_calls"),
    )
    events, done = run(scripted_model(scripted, *stream), [Message.user("weather?")], [WEATHER])
    call = ToolCall("get_weather", {"city": "Paris"}, id="call_abc")
    assert of_type(events, ToolCallEmitted) == [ToolCallEmitted(call)]
    assert done.message.tool_calls == (call,)
    assert done.stop_reason == "tool_calls"


@pytest.mark.server
@pytest.mark.parametrize(
    ("arguments", "reason"),
    [('["Paris"]', "must be an object"), ('{"city": "Par', "not valid JSON")],
)
def test_invalid_native_arguments_are_reported(
    scripted: ScriptServer, arguments: str, reason: str
) -> None:
    stream = sse(
        chunk(tool_calls=[call_piece(0, arguments, id="call_1", name="get_weather")]),
        chunk(tool_calls=[call_piece(1, "{}", id="call_2", name="launch_rockets")]),
        chunk("tool_calls"),
    )
    events, done = run(scripted_model(scripted, *stream), [Message.user("hi")], [WEATHER])
    malformed = of_type(events, MalformedToolCall)
    assert [reason in m.reason for m in malformed] == [True, False]
    assert "unknown tool 'launch_rockets'" in malformed[1].reason
    assert done.malformed_calls == tuple(malformed)
    assert not done.message.tool_calls
    assert done.stop_reason == "end"


@pytest.mark.server
def test_reasoning_fields_and_inline_think(scripted: ScriptServer) -> None:
    stream = sse(
        chunk(role="assistant", content=None, reasoning_content="The user "),
        chunk(reasoning="wants a greeting."),
        chunk(content="<think>Say hi.</th"),
        chunk(content="ink>\n\nHel"),
        chunk(content="lo!"),
        {"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 9}},
        chunk("stop"),
    )
    events, done = run(scripted_model(scripted, *stream), [Message.user("hi")])
    reasoning = [e.text for e in of_type(events, ReasoningDelta)]
    assert reasoning[:2] == ["The user ", "wants a greeting."]
    assert "".join(reasoning).endswith("Say hi.")
    assert "".join(e.text for e in of_type(events, AnswerDelta)) == "Hello!"
    assert done.message == Message.assistant(
        "Hello!", reasoning="The user wants a greeting.\nSay hi."
    )
    assert (done.stats.prompt_tokens, done.stats.completion_tokens) == (12, 9)
    assert done.stop_reason == "end"


@pytest.mark.server
def test_text_form_tool_call_in_native_mode(scripted: ScriptServer) -> None:
    stream = sse(
        chunk(content='<tool_call>\n{"name": "get_weather", '),
        chunk(content='"arguments": {"city": "Oslo"}}\n</tool_call>'),
        chunk("length"),
    )
    events, done = run(scripted_model(scripted, *stream), [Message.user("hi")], [WEATHER])
    [emitted] = of_type(events, ToolCallEmitted)
    assert emitted.call.arguments == {"city": "Oslo"}
    assert done.message.content == ""
    assert done.stop_reason == "max_tokens"


@pytest.mark.server
def test_request_is_in_openai_wire_form(scripted: ScriptServer) -> None:
    call = ToolCall("get_weather", {"city": "Rome"}, id="call_7")
    history = [
        Message.user("weather in Rome?"),
        Message.assistant(tool_calls=[call]),
        Message.tool_result(call, "sunny"),
    ]
    settings = GenerationSettings(max_tokens=5, enable_thinking=False, temperature=0.2)
    model = scripted_model(scripted, *sse(chunk("stop", content="Sunny.")))
    run(model, history, [WEATHER], settings)
    _, path, body = scripted.requests[-1]
    assert path == "/v1/chat/completions"
    assert body["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"city": "Rome"}'
    assert body["messages"][2] == {
        "role": "tool",
        "content": "sunny",
        "tool_call_id": "call_7",
        "name": "get_weather",
    }
    assert body["tools"] == [WEATHER.as_openai()]
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert (body["model"], body["max_tokens"], body["temperature"]) == ("scripted", 5, 0.2)
    assert "top_k" not in body


@pytest.mark.server
def test_prompt_mode_folds_tools_into_the_system_prompt(scripted: ScriptServer) -> None:
    call = ToolCall("get_weather", {"city": "Rome"}, id="call_7")
    history = [Message.user("weather?"), Message.assistant(tool_calls=[call])]
    scripted.routes["POST /v1/chat/completions"] = Scripted(sse(chunk("stop", content="ok")))
    model = scripted.client(model="scripted", tool_mode="prompt")
    run(model, [*history, Message.tool_result(call, "sunny")], [WEATHER])
    body = scripted.requests[-1][2]
    assert "tools" not in body
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]
    assert '"get_weather"' in body["messages"][0]["content"]
    assert "<tool_response>\nsunny" in body["messages"][3]["content"]


@pytest.mark.server
@pytest.mark.parametrize("chunked", [True, False])
def test_connection_dropped_mid_reply(scripted: ScriptServer, chunked: bool) -> None:
    stream = [*sse(chunk(content="Hello"), chunk(content=" wor"), done=False), b'data: {"cho']
    model = scripted_model(scripted, *stream, chunked=chunked, complete=False)
    seen: list[EngineEvent] = []
    with pytest.raises(RemoteModelError, match=r"dropped mid-reply|closed before the reply"):
        seen.extend(model.generate([Message.user("hi")]))
    assert of_type(seen, AnswerDelta)


@pytest.mark.server
def test_non_json_event(scripted: ScriptServer) -> None:
    model = scripted_model(scripted, *sse("<html>oops</html>"))
    with pytest.raises(RemoteModelError, match="not JSON"):
        list(model.generate([Message.user("hi")]))


@pytest.mark.server
def test_http_error_carries_the_servers_text(scripted: ScriptServer) -> None:
    error = {"error": {"code": 500, "message": "the request exceeds the context size"}}
    model = scripted_model(
        scripted, json.dumps(error).encode(), status=500, content_type="application/json"
    )
    with pytest.raises(RemoteModelError, match=r"HTTP 500.*exceeds the context size"):
        list(model.generate([Message.user("hi")]))


@pytest.mark.server
def test_error_event_mid_stream(scripted: ScriptServer) -> None:
    model = scripted_model(scripted, *sse({"error": {"message": "model unloaded"}}))
    with pytest.raises(RemoteModelError, match="model unloaded"):
        list(model.generate([Message.user("hi")]))


@pytest.mark.server
def test_info_from_the_model_list(scripted: ScriptServer) -> None:
    models = {"data": [{"id": "llama3:latest"}, {"id": "/m/Qwen3-4B-Q4_K_M.gguf"}]}
    scripted.routes["GET /v1/models"] = Scripted([json.dumps(models).encode()])
    info = scripted.client(model="/m/Qwen3-4B-Q4_K_M.gguf").info
    assert (info.name, info.quantization) == ("Qwen3-4B-Q4_K_M", "Q4_K_M")
    assert scripted.client().info.name == "llama3:latest"
    assert scripted.client(model="llama3").info.name == "llama3:latest"
    with pytest.raises(RemoteModelError, match=r"no model named 'phi'.*llama3:latest"):
        _ = scripted.client(model="phi").info


def test_connection_refused_names_the_url() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with RemoteModel(f"127.0.0.1:{port}") as model:
        with pytest.raises(RemoteModelError, match=f"127.0.0.1:{port}.*server is running"):
            _ = model.info
        with pytest.raises(RemoteModelError, match=f"127.0.0.1:{port}"):
            list(model.generate([Message.user("hi")]))


def test_cancelled_before_start_sends_nothing() -> None:
    cancel = CancelToken()
    cancel.cancel()
    with RemoteModel("127.0.0.1:9", model="x") as model:
        _, done = run(model, [Message.user("hi")], cancel=cancel)
    assert done.stop_reason == "cancelled"
