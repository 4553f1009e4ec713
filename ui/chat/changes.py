"""What can happen to a tool card, one typed change each: `TranscriptModel.update_card` applies
one to the card's record, so a misspelt field is a type error, not a silent new attribute."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth import ArgumentProblem, Duration, Ruling, TimeSlot
from hearth.ui.chat.entries import CardState, Countdown, ToolCardEntry, UndoState


@dataclass(frozen=True)
class Asking:
    """The gate asks the user: everything the question shows, as the core wrote it.

    `problems` are set when the question is to correct the arguments; `arguments` are the ones
    asked about (a correction's, after one), `proposed` the model's when the user corrected
    them; `overridden` names an allow rule the rule of two set aside.
    """

    reason: str
    rule: str
    taint: tuple[str, ...]
    scopes: tuple[str, ...]
    scope_labels: tuple[str, ...]
    durations: tuple[Duration, ...]
    preview: str | None
    slots: tuple[TimeSlot, ...]
    check: Callable[[Mapping[str, Any]], Any] | None
    countdown: Countdown | None
    arguments: dict[str, Any] | None = None
    proposed: dict[str, Any] | None = None
    problems: tuple[ArgumentProblem, ...] = ()
    overridden: str = ""

    def apply(self, card: ToolCardEntry) -> None:
        card.state = CardState.ASKING
        card.reason, card.rule, card.taint = self.reason, self.rule, self.taint
        card.problems, card.overridden = self.problems, self.overridden
        if self.arguments is not None:
            card.arguments, card.proposed = dict(self.arguments), self.proposed
        card.scopes, card.scope_labels, card.durations = (
            self.scopes,
            self.scope_labels,
            self.durations,
        )
        card.preview, card.slots = self.preview, self.slots
        card.check, card.countdown = self.check, self.countdown


@dataclass(frozen=True)
class StillAsking:
    """The user's answer could not be applied: the question stays open."""

    def apply(self, card: ToolCardEntry) -> None:
        card.state = CardState.ASKING


@dataclass(frozen=True)
class Answered:
    """The user answered, in words; an edit also carries the arguments it will run with."""

    answer: str
    arguments: dict[str, Any] | None = None
    proposed: dict[str, Any] | None = None

    def apply(self, card: ToolCardEntry) -> None:
        card.state, card.answer = CardState.ANSWERED, self.answer
        if self.arguments is not None:
            card.arguments, card.proposed = dict(self.arguments), self.proposed
            card.problems = ()  # said of the arguments the edit replaced


@dataclass(frozen=True)
class Ran:
    """The call ended: `summary` is the core's line for the card, `result` the model's text.

    `arguments` and `proposed` are set when the user's edit changed what ran (`proposed`: the
    call as they saw it); `filled` holds the defaults Hearth added; `answer_void` is set when the
    user's "allow" never took effect (the ruling says why instead).
    """

    outcome: str
    result: str
    summary: str
    ruling: Ruling
    duration_ms: float
    undoable: bool
    arguments: dict[str, Any] | None = None
    proposed: dict[str, Any] | None = None
    filled: dict[str, Any] = field(default_factory=dict)
    answer_void: bool = False

    def apply(self, card: ToolCardEntry) -> None:
        card.state, card.countdown = CardState.DONE, None
        card.filled = dict(self.filled)
        if self.arguments is not None:
            card.arguments, card.proposed = dict(self.arguments), self.proposed
            card.problems = ()
        if self.answer_void:
            card.answer = ""
        card.outcome, card.result, card.summary = self.outcome, self.result, self.summary
        card.ruling, card.duration_ms = self.ruling, self.duration_ms
        card.undo = UndoState.AVAILABLE if self.undoable else UndoState.UNAVAILABLE


@dataclass(frozen=True)
class Settled:
    """The turn failed before the call finished: the card stops waiting and claims nothing."""

    note: str

    def apply(self, card: ToolCardEntry) -> None:
        card.state, card.outcome, card.answer, card.countdown = (
            CardState.DONE,
            "unknown",
            "",
            None,
        )
        card.result = card.summary = self.note


@dataclass(frozen=True)
class UndoChanged:
    """The card's undo moved on; `note` says what undo did, once it is done."""

    undo: UndoState
    note: str = ""

    def apply(self, card: ToolCardEntry) -> None:
        card.undo = self.undo
        if self.note:
            card.undo_note = self.note


CardChange = Asking | StillAsking | Answered | Ran | Settled | UndoChanged
