"""The typed steps a turn yields. The CLI and the desktop UI consume the same stream."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from hearth.consent import Duration, TaintNote, Verdict
from hearth.engine.types import AnswerDelta, Message, ReasoningDelta, ToolCall
from hearth.tools import Tool


@dataclass(frozen=True, slots=True)
class AllowOnce:
    """Run this call, this time only."""


@dataclass(frozen=True, slots=True)
class AllowFor:
    """Run this call and remember the permission for a while, optionally for a scope."""

    duration: Duration
    scope: str | None = None


@dataclass(frozen=True, slots=True)
class EditArguments:
    """Run the call with arguments the user changed."""

    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Deny:
    reason: str = "the user said no"


Answer = AllowOnce | AllowFor | EditArguments | Deny


class ConsentRequest:
    """A question for the user about one proposed call; answered from any thread."""

    def __init__(self, call: ToolCall, tool: Tool, verdict: Verdict, preview: str) -> None:
        self.call = call
        self.tool = tool
        self.verdict = verdict
        self.preview = preview
        self._answered = threading.Event()
        self._answer: Answer | None = None

    @property
    def taint(self) -> list[TaintNote]:
        return list(self.verdict.taint)

    def answer(self, answer: Answer) -> None:
        if not self._answered.is_set():
            self._answer = answer
            self._answered.set()

    def wait(self, timeout: float) -> Answer | None:
        """The user's answer, or None if none came in time (which means deny)."""
        self._answered.wait(timeout)
        return self._answer


@dataclass(frozen=True, slots=True)
class ToolProposed:
    call: ToolCall
    tool: Tool | None
    preview: str


@dataclass(frozen=True, slots=True)
class ConsentAsked:
    request: ConsentRequest


Outcome = Literal["executed", "failed", "denied", "invalid"]


@dataclass(frozen=True, slots=True)
class ToolRan:
    """What happened to a proposed call.

    `observation` is what the model reads next (fenced when it holds outside text); `result` is
    the same text unfenced, for the user.
    """

    call: ToolCall
    outcome: Outcome
    observation: str
    decided_by: str
    duration_ms: float = 0.0
    undoable: bool = False
    result: str = ""


@dataclass(slots=True)
class TurnStats:
    """Per model call in the turn: tools offered, prompt size and tokens actually evaluated."""

    tools_offered: list[int] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    evaluated_tokens: list[int] = field(default_factory=list)

    @property
    def steps(self) -> int:
        return len(self.prompt_tokens)


@dataclass(frozen=True, slots=True)
class TurnDone:
    message: Message
    stop_reason: str
    stats: TurnStats


@dataclass(frozen=True, slots=True)
class TurnFailed:
    error: Exception


Step = ReasoningDelta | AnswerDelta | ToolProposed | ConsentAsked | ToolRan | TurnDone | TurnFailed
