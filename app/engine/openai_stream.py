"""The OpenAI streaming protocol: server-sent events, deltas and natively streamed tool calls."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import httpx

from hearth.engine.calls import MalformedCallError, check_call
from hearth.engine.stream import OutputParser
from hearth.errors import RemoteModelError
from hearth.generation import (
    EngineEvent,
    GenerationDone,
    GenerationStats,
    MalformedToolCall,
    ReasoningDelta,
    StopReason,
    ToolCallEmitted,
)
from hearth.messages import Message, ToolCall, ToolSpec


@dataclass(slots=True)
class PendingCall:
    """A natively streamed tool call, assembled from its pieces."""

    id: str = ""
    name: str = ""
    arguments: str = ""


class StreamedReply:
    """Everything one streamed reply has produced so far."""

    def __init__(self, parser: OutputParser, tools: Sequence[ToolSpec]) -> None:
        self.parser, self.tools, self.reasoning = parser, tuple(tools), ""
        self.pending: dict[int, PendingCall] = {}
        self.calls: list[ToolCall] = []
        self.malformed: list[MalformedToolCall] = []
        self.finish_reason: str | None = None
        self.finished, self.stats, self._deltas = False, GenerationStats(), 0

    def take(self, chunk: dict[str, Any]) -> list[EngineEvent]:
        """The events carried by one decoded stream chunk."""
        if chunk.get("error"):
            raise RemoteModelError(f"the server failed mid-reply: {error_message(chunk)}")
        self._take_usage(chunk)
        events: list[EngineEvent] = []
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if isinstance(delta, dict):
                events += self._take_delta(delta)
            if isinstance(choice, dict) and choice.get("finish_reason"):
                self.finish_reason, self.finished = str(choice["finish_reason"]), True
        return events

    def finish(self) -> list[EngineEvent]:
        """Flush the parser and turn the assembled native calls into events."""
        events = self.parser.finish()
        return events + [self._native_call(self.pending[i]) for i in sorted(self.pending)]

    def done(self, stop: StopReason) -> GenerationDone:
        calls = [*self.parser.calls, *self.calls]
        stop = "tool_calls" if stop == "end" and calls else stop
        parts = (self.reasoning.strip(), self.parser.reasoning.strip())
        reasoning = "\n".join(part for part in parts if part)
        message = Message.assistant(
            self.parser.answer.strip(), reasoning=reasoning, tool_calls=calls
        )
        self.stats.completion_tokens = self.stats.completion_tokens or self._deltas
        return GenerationDone(message, stop, self.stats, (*self.parser.malformed, *self.malformed))

    def _take_delta(self, delta: dict[str, Any]) -> list[EngineEvent]:
        events: list[EngineEvent] = []
        # llama-server says `reasoning_content`, Ollama says `reasoning`.
        thought = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(thought, str) and thought:
            self._deltas += 1
            self.reasoning += thought
            events.append(ReasoningDelta(thought))
        content = delta.get("content")
        if isinstance(content, str) and content:
            self._deltas += 1
            events += self.parser.feed(content)
        for piece in delta.get("tool_calls") or ():
            self._take_call_piece(piece)
        return events

    def _take_call_piece(self, piece: Any) -> None:
        function = piece.get("function") if isinstance(piece, dict) else None
        if not isinstance(function, dict):
            raise RemoteModelError(f"the server sent a malformed tool call delta: {piece!r}")
        index = piece.get("index")
        if not isinstance(index, int):  # without an index, a piece with an id starts a new call
            index = len(self.pending) if piece.get("id") or not self.pending else max(self.pending)
        call = self.pending.setdefault(index, PendingCall())
        call.id = str(piece.get("id") or call.id)
        name = str(function.get("name") or "")
        call.name += name if name != call.name else ""  # some servers repeat the name each piece
        arguments = function.get("arguments") or ""
        call.arguments += arguments if isinstance(arguments, str) else json.dumps(arguments)

    def _native_call(self, pending: PendingCall) -> EngineEvent:
        raw = json.dumps({"name": pending.name, "arguments": pending.arguments}, ensure_ascii=False)
        try:
            call = check_call(pending.name, json.loads(pending.arguments or "{}"), self.tools)
        except json.JSONDecodeError as exc:
            failure = MalformedToolCall(raw, f"arguments are not valid JSON: {exc}")
        except MalformedCallError as exc:
            failure = MalformedToolCall(raw, str(exc))
        else:
            call = replace(call, id=pending.id) if pending.id else call
            self.calls.append(call)
            return ToolCallEmitted(call)
        self.malformed.append(failure)
        return failure

    def _take_usage(self, chunk: dict[str, Any]) -> None:
        usage, timings = chunk.get("usage"), chunk.get("timings")
        if isinstance(usage, dict):
            self.stats.prompt_tokens = int(usage.get("prompt_tokens") or 0)
            self.stats.completion_tokens = int(usage.get("completion_tokens") or 0)
        self.stats.evaluated_tokens = self.stats.evaluated_tokens or self.stats.prompt_tokens
        if isinstance(timings, dict):  # only llama-server says how much of the prompt it reused
            self.stats.evaluated_tokens = int(timings.get("prompt_n") or 0)
            self.stats.reused_tokens = int(timings.get("cache_n") or 0)


def sse_data(lines: Iterable[str]) -> Iterator[str]:
    """The data of each complete server-sent event; an event cut off by EOF is dropped."""
    data: list[str] = []
    for line in lines:
        if not line and data:
            yield "\n".join(data)
            data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))


def error_text(response: httpx.Response) -> str:
    try:
        payload = response.json()
    except ValueError:
        return response.text.strip()[:500] or response.reason_phrase
    return error_message(payload) if isinstance(payload, dict) else str(payload)[:500]


def error_message(payload: dict[str, Any]) -> str:
    error = payload.get("error") or payload.get("detail") or payload.get("message") or payload
    if isinstance(error, dict):
        error = error.get("message") or json.dumps(error)
    return str(error)[:500]
