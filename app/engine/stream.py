"""Split streamed model text into reasoning, answer and tool calls, as it arrives.

Text that might be the start of a tag is held back until it is known not to be one, so no
partial `<think>` or `<tool_call>` ever reaches the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from hearth.engine.calls import MalformedCallError
from hearth.engine.formats import ToolFormat
from hearth.engine.grammar import CLOSE_TAG, OPEN_TAG
from hearth.generation import (
    AnswerDelta,
    EngineEvent,
    MalformedToolCall,
    ReasoningDelta,
    ToolCallEmitted,
)
from hearth.messages import ToolCall, ToolSpec

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


class Section(Enum):
    REASONING = "reasoning"
    ANSWER = "answer"
    TOOL_CALL = "tool_call"


def _partial_tag_length(text: str, tags: Sequence[str]) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of one of `tags`."""
    longest = 0
    for tag in tags:
        for size in range(min(len(tag) - 1, len(text)), longest, -1):
            if text.endswith(tag[:size]):
                longest = size
                break
    return longest


class OutputParser:
    """Incremental parser for one assistant reply."""

    def __init__(
        self, tool_format: ToolFormat, tools: Sequence[ToolSpec], *, start_in_reasoning: bool
    ) -> None:
        self.tool_format = tool_format
        self.tools = tuple(tools)
        self.section = Section.REASONING if start_in_reasoning else Section.ANSWER
        self.reasoning = ""
        self.answer = ""
        self.calls: list[ToolCall] = []
        self.malformed: list[MalformedToolCall] = []
        self._pending = ""
        self._call_body = ""
        self._answer_started = False

    @property
    def tool_body(self) -> str:
        """Text of the tool call being written so far (after the opening tag)."""
        return self._call_body

    def discard_tool_body(self) -> None:
        """Forget call text that arrived with the opening tag; the grammar will rewrite it."""
        self._call_body = ""

    def feed(self, text: str) -> list[EngineEvent]:
        self._pending += text
        events: list[EngineEvent] = []
        while self._pending:
            if not self._step(events):
                break
        return events

    def finish(self) -> list[EngineEvent]:
        """Flush held-back text at the end of generation."""
        events: list[EngineEvent] = []
        rest, self._pending = self._pending, ""
        if self.section is Section.TOOL_CALL:
            # A complete call whose closing tag never came (some servers stop on it) still counts.
            self._call_body += rest
            self._finish_call(events, unfinished=True)
        else:
            self._emit(rest, events)
        return events

    def force_end_reasoning(self) -> None:
        """Close the reasoning section when the engine injects `</think>` itself."""
        if self.section is Section.REASONING:
            self._pending = ""
            self.section = Section.ANSWER

    def _tags(self) -> tuple[str, ...]:
        if self.section is Section.REASONING:
            return (THINK_CLOSE,)
        if self.section is Section.TOOL_CALL:
            return (CLOSE_TAG,)
        return (THINK_OPEN, OPEN_TAG) if not self._answer_started else (OPEN_TAG,)

    def _step(self, events: list[EngineEvent]) -> bool:
        """Consume as much pending text as is safe; return True if a tag was crossed."""
        tags = self._tags()
        found = [(self._pending.find(tag), tag) for tag in tags]
        hits = [(index, tag) for index, tag in found if index >= 0]
        if not hits:
            keep = _partial_tag_length(self._pending, tags)
            safe = self._pending[: len(self._pending) - keep]
            self._pending = self._pending[len(safe) :]
            self._consume(safe, events)
            return False
        index, tag = min(hits)
        self._consume(self._pending[:index], events)
        self._pending = self._pending[index + len(tag) :]
        self._cross(tag, events)
        return True

    def _consume(self, text: str, events: list[EngineEvent]) -> None:
        if self.section is Section.TOOL_CALL:
            self._call_body += text
        else:
            self._emit(text, events)

    def _emit(self, text: str, events: list[EngineEvent]) -> None:
        if self.section is Section.REASONING:
            if not self.reasoning:
                text = text.lstrip("\n")
            if text:
                self.reasoning += text
                events.append(ReasoningDelta(text))
            return
        if not self._answer_started:
            text = text.lstrip()
        if text:
            self._answer_started = True
            self.answer += text
            events.append(AnswerDelta(text))

    def _cross(self, tag: str, events: list[EngineEvent]) -> None:
        if tag == THINK_OPEN:
            self.section = Section.REASONING
        elif tag == THINK_CLOSE:
            self.section = Section.ANSWER
        elif tag == OPEN_TAG:
            self.section = Section.TOOL_CALL
            self._call_body = ""
        else:
            self._finish_call(events)

    def _finish_call(self, events: list[EngineEvent], *, unfinished: bool = False) -> None:
        body, self._call_body = self._call_body, ""
        self.section = Section.ANSWER
        try:
            call = self.tool_format.parse(body.strip("\n"), self.tools)
        except MalformedCallError as exc:
            reason = "the tool call was not finished" if unfinished else str(exc)
            failure = MalformedToolCall(raw=body, reason=reason)
            self.malformed.append(failure)
            events.append(failure)
            return
        self.calls.append(call)
        events.append(ToolCallEmitted(call))
