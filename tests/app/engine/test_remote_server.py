"""RemoteModel against a real `python -m llama_cpp.server` running the SmolLM2 test model."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hearth.engine.remote import RemoteModel
from hearth.generation import (
    AnswerDelta,
    ChatModel,
    GenerationDone,
    GenerationSettings,
    MalformedToolCall,
    ToolCallEmitted,
)
from hearth.messages import CancelToken, Message, ToolCall
from tests.app.engine.test_remote import (
    GREEDY,
    WEATHER,
    of_type,
    run,
)
from tests.fixtures.openai_server import Relay, ScriptServer

# --- a real llama_cpp.server running SmolLM2 ------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(
    tmp_path_factory: pytest.TempPathFactory, test_gguf: Path
) -> Iterator[tuple[str, Path]]:
    gguf, port = test_gguf, _free_port()
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048"]
    with log_path.open("wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_serving(server, url, log_path)
        yield url, gguf
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _wait_until_serving(server: subprocess.Popen[bytes], url: str, log_path: Path) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"llama_cpp.server exited early:\n{log_path.read_text()[-4000:]}")
        try:
            if httpx.get(f"{url}/v1/models", timeout=2, trust_env=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    pytest.fail(f"llama_cpp.server did not start in time:\n{log_path.read_text()[-4000:]}")


@pytest.mark.model
@pytest.mark.server
def test_info_names_the_served_model(llama_server: tuple[str, Path]) -> None:
    url, gguf = llama_server
    with RemoteModel(url) as model:
        assert isinstance(model, ChatModel)
        assert model.info.name == gguf.stem
        assert str(gguf) in model.info.source


@pytest.mark.model
@pytest.mark.server
def test_plain_question_streams_an_answer(llama_server: tuple[str, Path]) -> None:
    question = [Message.user("What is the capital of France? Answer in one sentence.")]
    with RemoteModel(llama_server[0]) as model:
        events, done = run(model, question, settings=GREEDY)
    answer = of_type(events, AnswerDelta)
    assert len(answer) > 1
    assert done.message.content
    assert done.message.content == "".join(delta.text for delta in answer).strip()
    assert done.stop_reason in ("end", "max_tokens")
    assert done.stats.completion_tokens > 0


@pytest.mark.model
@pytest.mark.server
def test_cancel_after_the_first_delta(llama_server: tuple[str, Path]) -> None:
    cancel, events, cancelled_at = CancelToken(), [], 0.0
    story = [Message.user("Write a very long story about a dragon and a lighthouse.")]
    settings = GenerationSettings(max_tokens=1000, temperature=0.0)
    with RemoteModel(llama_server[0]) as model:
        for event in model.generate(story, settings=settings, cancel=cancel):
            events.append(event)
            if isinstance(event, AnswerDelta) and not cancel.cancelled:
                cancel.cancel()
                cancelled_at = time.perf_counter()
        stopped_in = time.perf_counter() - cancelled_at
        assert isinstance(events[-1], GenerationDone)
        assert events[-1].stop_reason == "cancelled"
        assert stopped_in < 1.0
        settings = GenerationSettings(max_tokens=8, temperature=0.0)
        _, after = run(model, [Message.user("Say yes.")], settings=settings)
    assert after.stop_reason in ("end", "max_tokens")


@pytest.mark.model
@pytest.mark.server
def test_prompt_mode_accounts_for_every_tool_call(
    llama_server: tuple[str, Path], scripted: ScriptServer
) -> None:
    relay = Relay(llama_server[0])
    scripted.routes |= {"GET /v1/models": relay, "POST /v1/chat/completions": relay}
    # SmolLM2-135M only writes calls after seeing some; two examples make it write one.
    ask: list[Message] = []
    for city in ("Rome", "Oslo"):
        call = ToolCall("get_weather", {"city": city})
        ask += [Message.user(f"What is the weather in {city}?")]
        ask += [Message.assistant(tool_calls=[call])]
    ask.append(Message.user("What is the weather in Paris?"))
    with RemoteModel(scripted.url, tool_mode="prompt") as model:
        events, done = run(model, ask, [WEATHER], GREEDY)
    sent = "".join(
        choice["delta"].get("content") or ""
        for line in b"".join(relay.recorded).decode().splitlines()
        if line.startswith("data: {")
        for choice in json.loads(line[6:]).get("choices", [])
    )
    emitted, malformed = of_type(events, ToolCallEmitted), of_type(events, MalformedToolCall)
    assert sent.count("<tool_call>") >= 1, f"the model wrote no tool call: {sent!r}"
    assert sent.count("<tool_call>") == len(emitted) + len(malformed)
    assert done.message.tool_calls == tuple(e.call for e in emitted)
    assert done.malformed_calls == tuple(malformed)
    assert "tools" not in scripted.requests[-1][2]
