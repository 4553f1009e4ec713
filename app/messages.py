"""The conversation vocabulary every layer shares: messages, tool specs and calls, a stop flag."""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]


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
    # What Hearth tells the model alongside a user's words (the moment they were said), kept
    # out of the system prompt so that prompt, and its model state, never change. Not part of
    # what the user said: equality, the store and every screen ignore it.
    context: str = field(default="", compare=False)

    @classmethod
    def system(cls, content: str) -> Message:
        return cls("system", content)

    @classmethod
    def user(cls, content: str, *, context: str = "") -> Message:
        return cls("user", content, context=context)

    @classmethod
    def assistant(
        cls, content: str = "", *, reasoning: str = "", tool_calls: Sequence[ToolCall] = ()
    ) -> Message:
        return cls("assistant", content, reasoning=reasoning, tool_calls=tuple(tool_calls))

    @classmethod
    def tool_result(cls, call: ToolCall, content: str) -> Message:
        return cls("tool", content, tool_call_id=call.id, name=call.name)

    @property
    def model_text(self) -> str:
        """The content as the model reads it: the context, then what was said."""
        return f"{self.context}\n\n{self.content}" if self.context else self.content

    def as_template_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.model_text}
        if self.reasoning:
            data["reasoning_content"] = self.reasoning
        if self.tool_calls:
            data["tool_calls"] = [call.as_openai() for call in self.tool_calls]
        if self.tool_call_id:
            data["tool_call_id"] = self.tool_call_id
        if self.name:
            data["name"] = self.name
        return data


class CancelToken:
    """Thread-safe stop flag checked between tokens, and passed on to whoever listens (the
    engine raises a flag llama.cpp reads inside its decode)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []

    def cancel(self) -> None:
        with self._lock:
            self._event.set()
            listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def when_cancelled(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` once on `cancel()` (at once if that came already, on this thread);
        returns the function that stops listening."""
        with self._lock:
            if not self._event.is_set():
                self._listeners.append(listener)
                return lambda: self._forget(listener)
        listener()
        return lambda: None

    def _forget(self, listener: Callable[[], None]) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._listeners.remove(listener)
