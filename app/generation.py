"""What the agent asks of a model and what a model streams back; every backend speaks this.

Lives below the engine so the agent loop, the store and the front ends never import a backend.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from hearth.messages import CancelToken, Message, ToolCall, ToolSpec

StopReason = Literal["end", "tool_calls", "max_tokens", "cancelled", "repetition", "context_full"]


@dataclass(frozen=True, slots=True)
class PromptProgress:
    """How far the model has read the prompt before it writes: `read` of the `total` tokens
    it must read this time (what its memory already held is not counted).

    Comes first, starting at 0, then after each batch, ending at `total`; a backend that
    cannot tell sends none.
    """

    read: int
    total: int

    @property
    def fraction(self) -> float:
        return min(1.0, self.read / self.total) if self.total > 0 else 1.0


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
    # The prompt's fixed prefix (system text and tools) and where its state came from this
    # time: "memory" or "disk" when loaded, "computed" when read and kept, "" otherwise.
    prefix_tokens: int = 0
    prefix_source: str = ""


@dataclass(frozen=True, slots=True)
class GenerationDone:
    """The last event of every generation: the assistant message as it goes into history."""

    message: Message
    stop_reason: StopReason
    stats: GenerationStats
    malformed_calls: tuple[MalformedToolCall, ...] = ()


EngineEvent = (
    PromptProgress
    | ReasoningDelta
    | AnswerDelta
    | ToolCallEmitted
    | MalformedToolCall
    | GenerationDone
)


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
    threads: int = 0  # the most CPU threads a reply may use; 0 when it runs elsewhere


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
