"""What the transcript holds: plain records that the list model serves and the delegate draws."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal, Protocol

from hearth import ArgumentProblem, Duration, Ruling, TimeSlot, shown

_ids = itertools.count(1)


class CardState(Enum):
    PROPOSED = "proposed"  # the gate is deciding
    ASKING = "asking"  # waiting for the user's answer
    ANSWERED = "answered"  # the user answered; the call is being run or refused
    DONE = "done"  # ToolRan arrived (or the card came from history)


class UndoState(Enum):
    UNAVAILABLE = "unavailable"
    AVAILABLE = "available"
    RUNNING = "running"
    DONE = "done"


Tone = Literal["info", "warning", "error"]


class Countdown(Protocol):
    """A waiting question's clock (the core's `ConsentRequest`): no answer in time means deny."""

    def remaining(self) -> float: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...


@dataclass(eq=False, kw_only=True)
class Entry:
    """One row of the transcript; `version` changes whenever what is drawn changes."""

    id: int = field(default_factory=lambda: next(_ids))
    version: int = 0

    def touch(self) -> None:
        self.version += 1

    @property
    def copy_text(self) -> str:
        return ""


@dataclass(eq=False, kw_only=True)
class UserEntry(Entry):
    text: str

    @property
    def copy_text(self) -> str:
        return self.text


@dataclass(eq=False, kw_only=True)
class ReasoningEntry(Entry):
    """The model's thinking: shown while it streams, folded away once the answer starts.

    `tools` is the line saying which connectors' tools the model was offered this turn (already
    escaped by `offered_line`); it shows with the thoughts, and stays in view when folded if
    `tools_left_out` (some did not fit). A turn with no thinking keeps just that line.
    """

    text: str = ""
    live: bool = True
    collapsed: bool = False
    tools: str = ""
    tools_left_out: bool = False

    @property
    def copy_text(self) -> str:
        return "\n\n".join(part for part in (self.tools, self.text.strip()) if part)


@dataclass(eq=False, kw_only=True)
class AnswerEntry(Entry):
    text: str = ""
    live: bool = True

    @property
    def copy_text(self) -> str:
        return self.text.strip()


@dataclass(eq=False, kw_only=True)
class ReadingEntry(Entry):
    """The reply still to come while the model reads its prompt: `read` of `total` tokens.

    Always the last row, and gone as soon as anything else is shown; `after_tools` when what
    it reads is what a tool returned rather than the user's message.
    """

    read: int = 0
    total: int = 0
    after_tools: bool = False

    @property
    def fraction(self) -> float:
        return min(1.0, self.read / self.total) if self.total > 0 else 1.0

    @property
    def copy_text(self) -> str:
        """What the row says (and what a screen reader reads): "Reading your message… 40%"."""
        what = "the results" if self.after_tools else "your message"
        return f"Reading {what}… {math.floor(self.fraction * 100)}%"


@dataclass(eq=False, kw_only=True)
class NoticeEntry(Entry):
    """A line from Hearth itself: stopped, an error, a limit reached."""

    text: str
    tone: Tone = "info"

    @property
    def copy_text(self) -> str:
        return self.text


@dataclass(eq=False, kw_only=True)
class ToolCardEntry(Entry):
    """A proposed tool call, from the proposal through the user's answer to its result.

    Every sentence comes from the core's records as written there: the request's reason, rule
    and taint lines while asking, the `Ruling` once decided.
    """

    call_id: str
    tool: str
    effect: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)  # what ran, once it ran
    proposed: dict[str, Any] | None = None  # the call as the user saw it, when they edited it
    filled: dict[str, Any] = field(default_factory=dict)  # defaults Hearth added to the call
    preview: str | None = None  # None when the tool has no preview of its own
    slots: tuple[TimeSlot, ...] = ()  # the stretches of time the call moves or fills, drawn
    state: CardState = CardState.PROPOSED
    reason: str = ""  # why the gate asked
    rule: str = ""  # the rule that made the gate ask, in words
    overridden: str = ""  # an allow rule the rule of two set aside to ask, in words
    problems: tuple[ArgumentProblem, ...] = ()  # what to correct before the call can run
    taint: tuple[str, ...] = ()  # "recipient 'x@y.z' came from email 'Invoice'"
    scopes: tuple[str, ...] = ()  # what "Allow for…" may cover, narrowest first
    scope_labels: tuple[str, ...] = ()  # the same in words ("volume up to 60"), if they differ
    durations: tuple[Duration, ...] = ()  # how long "Allow for…" may last
    check: Callable[[Mapping[str, Any]], Any] | None = None  # the tool's argument check
    countdown: Countdown | None = None  # while asking: time left before it denies itself
    answer: str = ""  # the user's answer in words, once given
    outcome: str = ""  # executed | failed | denied | invalid
    result: str = ""  # what the model read, behind "Show details"
    summary: str = ""  # the core's line for the card (`ToolRan.summary`), never parsed here
    ruling: Ruling | None = None  # who decided and why, once decided
    duration_ms: float = 0.0
    undo: UndoState = UndoState.UNAVAILABLE
    undo_note: str = ""

    @property
    def preview_lines(self) -> tuple[list[str], list[str]]:
        """The preview's warnings (lines a tool starts with "⚠" before its first blank line,
        so a message body cannot pose as one), and the rest of it, escaped as `shown` does it.

        Only a plain line break starts a line: a separator (U+2028) or a CR in a subject or a
        body is shown as an escape, so it cannot begin a line that poses as a warning."""
        preview = shown(self.preview or "", lines=True)
        head, gap, body = preview.partition("\n\n")
        warned = [line for line in head.splitlines() if line.startswith("⚠")]
        plain = [line for line in head.splitlines() if not line.startswith("⚠")]
        return warned, plain + (["", *body.splitlines()] if gap else [])

    @property
    def copy_text(self) -> str:
        shown = self.preview or json.dumps(self.arguments, ensure_ascii=False, default=str)
        lines = [f"{self.tool}: {shown}"]
        if self.result:
            lines.append(f"{self.outcome}: {self.result}")
        return "\n".join(lines)


TranscriptEntry = (
    UserEntry | ReasoningEntry | AnswerEntry | ReadingEntry | NoticeEntry | ToolCardEntry
)
