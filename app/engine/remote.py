"""`RemoteModel`: a chat model served by `llama-server`, Ollama or `llama_cpp.server`.

Replies stream as server-sent events. Content always goes through `OutputParser`, so inline
`<think>` blocks and text-form tool calls are handled whatever the server does with them.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Generator, Iterator, Sequence
from pathlib import PurePosixPath
from typing import Any, Literal

import httpx

from hearth.engine.formats import FORMATS
from hearth.engine.openai_stream import StreamedReply, error_text, sse_data
from hearth.engine.stream import OutputParser
from hearth.errors import RemoteModelError
from hearth.generation import EngineEvent, GenerationSettings, ModelInfo, StopReason
from hearth.messages import CancelToken, Message, ToolCall, ToolSpec

ToolMode = Literal["native", "prompt"]

_QUANT = re.compile(r"(?i)(?<![a-z0-9])(i?q\d(?:_[a-z0-9]{1,2})*|bf16|f16|f32)(?![a-z0-9])")
_SAMPLING = ("temperature", "top_p", "top_k", "min_p", "repeat_penalty", "seed")


def normalise_base_url(url: str) -> str:
    """The server's API root, ending in `/v1`, from whatever address the user typed."""
    text = url.strip().rstrip("/")
    text = text if "://" in text else f"http://{text}"
    if not text.startswith(("http://", "https://")):
        raise RemoteModelError(f"{url!r} is not an http:// or https:// address")
    return text.removesuffix("/chat/completions").removesuffix("/v1") + "/v1"


class RemoteModel:
    """A `ChatModel` whose replies come from an OpenAI-compatible server."""

    def __init__(
        self,
        base_url: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        tool_mode: ToolMode = "native",
        connect_timeout: float = 5.0,
        read_timeout: float = 300.0,
    ) -> None:
        self.base_url = normalise_base_url(base_url)
        self.model = model
        self.tool_mode = tool_mode
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        # A home server is reached directly: a system proxy would get to read private chats.
        self._client = httpx.Client(headers=headers, timeout=timeout, trust_env=False)
        self._info: ModelInfo | None = None
        self._model_id = model

    @property
    def info(self) -> ModelInfo:
        if self._info is None:
            self._info = self._fetch_info()
        return self._info

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        settings: GenerationSettings | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[EngineEvent]:
        """Stream one assistant reply from the server."""
        settings = settings or GenerationSettings()
        cancel = cancel or CancelToken()
        offered = () if settings.tool_choice == "none" else tuple(tools)
        fmt = FORMATS["generic-json" if self.tool_mode == "prompt" else "hermes-json"]
        reply = StreamedReply(OutputParser(fmt, offered, start_in_reasoning=False), offered)
        if cancel.cancelled:
            yield reply.done("cancelled")
            return
        stop = yield from self._stream(
            self._request_body(messages, offered, settings), reply, cancel
        )
        yield from reply.finish()
        yield reply.done(stop)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> RemoteModel:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _fetch_info(self) -> ModelInfo:
        data = self._get_json("/models")
        listed = data.get("data") if isinstance(data, dict) else None
        models = [m for m in listed or () if isinstance(m, dict) and isinstance(m.get("id"), str)]
        wanted = self.model
        # Ollama lists "qwen3:latest" for a model the user calls "qwen3".
        matches = [m for m in models if wanted in (None, m["id"], m["id"].removesuffix(":latest"))]
        entry = matches[0] if matches else None
        if entry is None:
            have = ", ".join(m["id"] for m in models) or "none"
            what = f"no model named {wanted!r}" if wanted else "no models loaded"
            raise RemoteModelError(f"the server at {self.base_url} has {what} (it has: {have})")
        self._model_id = model_id = str(entry["id"])
        meta = entry.get("meta")
        context = meta.get("n_ctx_train") if isinstance(meta, dict) else None
        quant = _QUANT.search(model_id)
        return ModelInfo(
            name=_display_name(model_id),
            source=f"{self.base_url} ({model_id})",
            architecture="unknown",
            quantization=quant.group(1).upper() if quant else "unknown",
            context_length=context if isinstance(context, int) else 0,
            tool_format="openai" if self.tool_mode == "native" else "generic-json",
        )

    def _request_body(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: GenerationSettings
    ) -> dict[str, Any]:
        if self._model_id is None:
            self._info = self._fetch_info()
        native = self.tool_mode == "native"
        body: dict[str, Any] = {
            "model": self._model_id,
            "messages": [_wire_message(m) for m in messages]
            if native
            else FORMATS["generic-json"].prepare(messages, tools)[0],
            "stream": True,
            "stream_options": {"include_usage": True},
            "max_tokens": settings.max_tokens,
            "chat_template_kwargs": {"enable_thinking": settings.enable_thinking},
        }
        body.update(
            {k: getattr(settings, k) for k in _SAMPLING if getattr(settings, k) is not None}
        )
        if native and tools:
            body["tools"] = [tool.as_openai() for tool in tools]
            body["tool_choice"] = settings.tool_choice
        return body

    def _stream(
        self, body: dict[str, Any], reply: StreamedReply, cancel: CancelToken
    ) -> Generator[EngineEvent, None, StopReason]:
        url, started = f"{self.base_url}/chat/completions", time.perf_counter()
        try:
            with self._client.stream("POST", url, json=body) as response:
                self._check_status(response, url)
                for payload in sse_data(response.iter_lines()):
                    reply.stats.prefill_seconds = reply.stats.prefill_seconds or (
                        time.perf_counter() - started
                    )
                    if payload.strip() == "[DONE]":
                        reply.finished = True
                        break
                    yield from reply.take(self._decode(payload))
                    if cancel.cancelled:
                        return "cancelled"
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        finally:
            reply.stats.decode_seconds = time.perf_counter() - started - reply.stats.prefill_seconds
        if not reply.finished:
            raise RemoteModelError(
                f"the connection to {self.base_url} closed before the reply finished;"
                " the server may have stopped or run out of memory"
            )
        return "max_tokens" if reply.finish_reason == "length" else "end"

    def _get_json(self, path: str) -> Any:
        url = f"{self.base_url}{path}"
        try:
            response = self._client.get(url)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        self._check_status(response, url)
        try:
            return response.json()
        except ValueError as exc:
            raise RemoteModelError(
                f"{url} did not answer with JSON; is it OpenAI-compatible?"
            ) from exc

    def _check_status(self, response: httpx.Response, url: str) -> None:
        if response.status_code >= 400:
            response.read()
            hint = " (check the API key)" if response.status_code in (401, 403) else ""
            status = f"HTTP {response.status_code}{hint}"
            raise RemoteModelError(f"{url} answered {status}: {error_text(response)}")

    def _decode(self, payload: str) -> dict[str, Any]:
        try:
            chunk = json.loads(payload)
        except json.JSONDecodeError:
            chunk = None
        if not isinstance(chunk, dict):
            event = payload[:200]
            raise RemoteModelError(f"{self.base_url} sent an event that is not JSON: {event!r}")
        return chunk

    def _transport_error(self, exc: httpx.HTTPError) -> RemoteModelError:
        where = self.base_url
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
            return RemoteModelError(
                f"could not connect to {where} ({exc}); check that the server is running"
                " and that the address and port are right"
            )
        if isinstance(exc, httpx.TimeoutException):
            return RemoteModelError(f"{where} stopped answering (timed out: {exc})")
        if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
            return RemoteModelError(f"the connection to {where} dropped mid-reply ({exc})")
        return RemoteModelError(f"talking to {where} failed: {exc}")


def _wire_message(message: Message) -> dict[str, Any]:
    """One message in OpenAI wire form: call arguments as JSON strings, results by call id."""
    data: dict[str, Any] = {"role": message.role, "content": message.model_text}
    if message.tool_calls:
        data["tool_calls"] = [_wire_call(call) for call in message.tool_calls]
    if message.role == "tool":
        data["tool_call_id"] = message.tool_call_id or ""
        data.update({"name": message.name} if message.name else {})
    return data


def _wire_call(call: ToolCall) -> dict[str, Any]:
    arguments = json.dumps(call.arguments, ensure_ascii=False)
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def _display_name(model_id: str) -> str:
    path = PurePosixPath(model_id.replace("\\", "/"))
    return path.stem if path.suffix.lower() == ".gguf" else model_id
