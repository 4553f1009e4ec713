"""A scripted chat model for unit tests of agent logic (the engine itself is tested for real)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hearth.engine.calls import MalformedCallError, check_call
from hearth.generation import (
    AnswerDelta,
    EngineEvent,
    GenerationDone,
    GenerationSettings,
    GenerationStats,
    MalformedToolCall,
    ModelInfo,
    ReasoningDelta,
    ToolCallEmitted,
)
from hearth.messages import CancelToken, Message, ToolCall, ToolSpec


@dataclass(frozen=True)
class Reply:
    text: str = ""
    reasoning: str = ""
    calls: Sequence[tuple[str, dict[str, Any]]] = ()
    unchecked: bool = False  # emit calls as a misbehaving backend would, without validation


@dataclass
class Request:
    messages: list[Message]
    tools: list[str]


@dataclass
class ScriptedModel:
    """Replies in order; a reply may be a function of the conversation so far."""

    replies: list[Reply | Callable[[list[Message]], Reply]]
    requests: list[Request] = field(default_factory=list)
    info: ModelInfo = field(
        default_factory=lambda: ModelInfo("scripted", "tests", "none", "none", 8192, "hermes-json")
    )

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        settings: GenerationSettings | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[EngineEvent]:
        self.requests.append(Request(list(messages), [tool.name for tool in tools]))
        if not self.replies:
            raise AssertionError("the scripted model ran out of replies")
        reply = self.replies.pop(0)
        if callable(reply):
            reply = reply(list(messages))
        if reply.reasoning:
            yield ReasoningDelta(reply.reasoning)
        for word in reply.text.split(" "):
            yield AnswerDelta(word + " ")
        calls: list[ToolCall] = []
        malformed: list[MalformedToolCall] = []
        for name, arguments in reply.calls:
            if reply.unchecked:
                calls.append(ToolCall(name, arguments))
                yield ToolCallEmitted(calls[-1])
                continue
            try:
                calls.append(check_call(name, arguments, tools))
                yield ToolCallEmitted(calls[-1])
            except MalformedCallError as exc:
                malformed.append(MalformedToolCall(f"{name} {arguments}", str(exc)))
                yield malformed[-1]
        stats = GenerationStats(prompt_tokens=sum(len(m.content) for m in messages))
        message = Message.assistant(reply.text, reasoning=reply.reasoning, tool_calls=calls)
        stop = "tool_calls" if calls else "end"
        yield GenerationDone(message, stop, stats, tuple(malformed))

    def close(self) -> None:
        pass
