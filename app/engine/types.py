"""Plain data shared by every engine backend: messages, tools, stream events, settings."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant", "tool"]
StopReason = Literal["end", "tool_calls", "max_tokens", "cancelled", "repetition", "context_full"]


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool offered to the model: name, description and a JSON schema (type object)."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )

    def as_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.parameters),
            },
        }


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call the model proposed, already checked against the offered tool's schema."""

    name: str
    arguments: dict[str, Any]
    id: str = field(default_factory=new_call_id)

    def as_openai(self) -> dict[str, Any]:
        # Templates want arguments as a mapping, not a JSON string (Qwen3.5 iterates them).
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message, in the shape chat templates expect."""

    role: Role
    content: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None

    @classmethod
    def system(cls, content: str) -> Message:
        return cls("system", content)

    @classmethod
    def user(cls, content: str) -> Message:
        return cls("user", content)

    @classmethod
    def assistant(
        cls, content: str = "", *, reasoning: str = "", tool_calls: Sequence[ToolCall] = ()
    ) -> Message:
        return cls("assistant", content, reasoning=reasoning, tool_calls=tuple(tool_calls))

    @classmethod
    def tool_result(cls, call: ToolCall, content: str) -> Message:
        return cls("tool", content, tool_call_id=call.id, name=call.name)

    def as_template_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.reasoning:
            data["reasoning_content"] = self.reasoning
        if self.tool_calls:
            data["tool_calls"] = [call.as_openai() for call in self.tool_calls]
        if self.tool_call_id:
            data["tool_call_id"] = self.tool_call_id
        if self.name:
            data["name"] = self.name
        return data


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class AnswerDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallEmitted:
    call: ToolCall


@dataclass(frozen=True, slots=True)
class MalformedToolCall:
    """A tool call the model started but that did not parse or validate; never dropped silently."""

    raw: str
    reason: str


@dataclass(slots=True)
class GenerationStats:
    prompt_tokens: int = 0
    evaluated_tokens: int = 0
    reused_tokens: int = 0
    completion_tokens: int = 0
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0

    @property
    def decode_tokens_per_second(self) -> float:
        if self.decode_seconds <= 0:
            return 0.0
        return self.completion_tokens / self.decode_seconds


@dataclass(frozen=True, slots=True)
class GenerationDone:
    """The last event of every generation: the assistant message as it goes into history."""

    message: Message
    stop_reason: StopReason
    stats: GenerationStats
    malformed_calls: tuple[MalformedToolCall, ...] = ()


EngineEvent = ReasoningDelta | AnswerDelta | ToolCallEmitted | MalformedToolCall | GenerationDone


@dataclass(frozen=True, slots=True)
class GenerationSettings:
    """Per-request settings. Sampling fields left as None use the model's own defaults."""

    max_tokens: int = 1024
    tool_choice: Literal["auto", "required", "none"] = "auto"
    parallel_tool_calls: bool = False
    enable_thinking: bool = True
    reasoning_budget: int = 768
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    repeat_penalty: float | None = None
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class ModelInfo:
    name: str
    source: str
    architecture: str
    quantization: str
    context_length: int
    tool_format: str


class CancelToken:
    """Thread-safe stop flag checked between tokens and inside llama.cpp's decode."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


@runtime_checkable
class ChatModel(Protocol):
    """What the agent loop needs from a model: a stream of typed events for one reply."""

    @property
    def info(self) -> ModelInfo: ...

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        settings: GenerationSettings | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[EngineEvent]: ...

    def close(self) -> None: ...
