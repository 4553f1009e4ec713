"""The typed steps a turn yields. The CLI and the desktop UI consume the same stream."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from hearth.agent.answers import Answer, EditArguments
from hearth.consent import (
    TaintNote,
    Verdict,
    cannot_scope,
    describe_taint,
    scope_suggestions,
    scope_words,
    unscoped_choice,
)
from hearth.generation import AnswerDelta, PromptProgress, ReasoningDelta
from hearth.messages import Message, ToolCall
from hearth.ruling import Duration, Reason, Ruling
from hearth.timeslots import TimeSlot
from hearth.tools import ArgumentProblem, Provenance, Tool, summary_of

ALLOWED_DURATIONS: tuple[Duration, ...] = ("conversation", "hour", "always")
DEFAULT_TIMEOUT_S = 300.0
TO_FIX = "it cannot run as proposed; correct what is marked with Edit arguments, or deny it"


@dataclass(frozen=True, slots=True)
class TaintLine:
    """One argument that came from untrusted text, and the sentence that says so."""

    note: TaintNote
    sentence: str


class ConsentRequest:
    """A question for the user about one proposed call, with everything a card shows.

    Front ends render these fields as they are; answered from any thread. `durations` lists the
    lengths "Allow for…" may offer, least lasting first, so a default never means "always".
    `scopes` are the patterns "Allow for…" may name; `unscoped` (set when the call names no
    resource) words the grant `AllowFor(duration, scope=None)` makes; `no_grant` says why no
    "Allow for…" can cover the call, before the user picks one. `slots` are the stretches of
    time a card draws (a calendar change's old and new slot). `timeout_s` starts counting at
    once; `pause()` stops it while the user edits.

    A request with `problems` asks the user to correct a call that cannot run as proposed: only
    an edit (`EditArguments`, examined again from the start) or a denial can answer it. One with
    `edited_from` is about a call the user corrected that way: the model's own arguments.
    """

    def scope_label(self, pattern: str) -> str:
        """How "Allow for…" words one of `scopes` ("volume up to 60" for "volume:0-60")."""
        return scope_words(self.tool, pattern)

    def __init__(
        self,
        call: ToolCall,
        tool: Tool,
        verdict: Verdict,
        *,
        preview: str | None,
        scopes: tuple[str, ...] = (),
        taint: tuple[TaintLine, ...] = (),
        unscoped: str | None = None,
        no_grant: str = "",
        slots: tuple[TimeSlot, ...] = (),
        durations: tuple[Duration, ...] = ALLOWED_DURATIONS,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        problems: tuple[ArgumentProblem, ...] = (),
        edited_from: Mapping[str, Any] | None = None,
    ) -> None:
        self.call = call
        self.problems = problems
        self.edited_from = edited_from
        self.tool = tool
        self.verdict = verdict
        self.preview = preview
        self.scopes = scopes
        self.taint = taint
        self.durations = durations
        self.unscoped = unscoped
        self.no_grant = no_grant
        self.slots = slots
        self.timeout_s = timeout_s
        self._answered = threading.Event()
        self._answer: Answer | None = None
        self._clock = threading.Lock()
        self._started = time.monotonic()
        self._paused_at: float | None = None
        self._paused_for = 0.0

    @classmethod
    def build(
        cls,
        call: ToolCall,
        tool: Tool,
        arguments: Mapping[str, Any],
        verdict: Verdict,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        edited_from: Mapping[str, Any] | None = None,
    ) -> ConsentRequest:
        """The question a card shows about this call, every sentence already written."""
        return cls(
            call,
            tool,
            verdict,
            preview=tool.preview_text(arguments),
            scopes=tuple(scope_suggestions(tool, arguments)),
            taint=tuple(TaintLine(note, describe_taint(tool, note)) for note in verdict.taint),
            unscoped=unscoped_choice(tool, arguments),
            no_grant=cannot_scope(tool, arguments),
            slots=tool.time_slots(arguments),
            timeout_s=timeout_s,
            edited_from=edited_from,
        )

    @classmethod
    def to_fix(
        cls,
        call: ToolCall,
        tool: Tool,
        problems: tuple[ArgumentProblem, ...],
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> ConsentRequest:
        """The question about a call whose arguments cannot be used as they are: fix or deny."""
        verdict = Verdict("ask", Reason.INVALID_ARGUMENTS, TO_FIX)
        return cls(
            call, tool, verdict, preview=None, durations=(), timeout_s=timeout_s, problems=problems
        )

    def describe(self, answer: Answer) -> str:
        """The user's answer in words, as the card keeps it."""
        if self.problems and isinstance(answer, EditArguments):
            return "You corrected the arguments."
        return answer.describe()

    @property
    def overridden_rule(self) -> str:
        """The allow rule that would have run the call, had the conversation not read untrusted
        content, in words; empty when none would."""
        return self.verdict.overridden.describe() if self.verdict.overridden else ""

    def remaining(self) -> float:
        """Seconds left before no answer means deny; paused time does not count."""
        with self._clock:
            now = self._paused_at if self._paused_at is not None else time.monotonic()
            return max(0.0, self.timeout_s - (now - self._started - self._paused_for))

    @property
    def paused(self) -> bool:
        return self._paused_at is not None

    def pause(self) -> None:
        """Stop the countdown, e.g. while the user edits the arguments."""
        with self._clock:
            if self._paused_at is None:
                self._paused_at = time.monotonic()

    def resume(self) -> None:
        with self._clock:
            if self._paused_at is not None:
                self._paused_for += time.monotonic() - self._paused_at
                self._paused_at = None

    @property
    def reason(self) -> str:
        """Why Hearth asks, in words."""
        return self.verdict.reason

    @property
    def rule_text(self) -> str:
        """The rule that made Hearth ask, in words; empty when none did."""
        return self.verdict.rule.describe() if self.verdict.rule else ""

    def answer(self, answer: Answer) -> None:
        if not self._answered.is_set():
            self._answer = answer
            self._answered.set()

    def wait(self, timeout: float) -> Answer | None:
        """The user's answer, or None if none came in time (which means deny)."""
        self._answered.wait(timeout)
        return self._answer


@dataclass(frozen=True, slots=True)
class ToolsOffered:
    """The connectors whose tools the model may call this turn, in the order it reads them.

    Yielded when a turn starts, and again when a tool's output brought more in (`added`, at
    the end). `left_out` were involved but did not fit the tools' prompt budget.
    """

    connectors: tuple[str, ...]
    left_out: tuple[str, ...] = ()
    added: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolProposed:
    """A call the model proposed; `preview` is None when the tool has no preview of its own."""

    call: ToolCall
    tool: Tool | None
    preview: str | None


@dataclass(frozen=True, slots=True)
class CallMalformed:
    """The model tried to call a tool but the call could not be parsed; it is refused."""

    raw: str
    reason: str


@dataclass(frozen=True, slots=True)
class ConsentAsked:
    request: ConsentRequest


Outcome = Literal["executed", "partial", "failed", "denied", "invalid"]


@dataclass(frozen=True, slots=True)
class ToolRan:
    """What happened to a proposed call.

    `observation` is what the model reads next (fenced when it holds outside text); `result` is
    the same text unfenced; `ruling` says who decided and why. `arguments` are the ones that
    actually ran (the user's edit, else the validated proposal; None when nothing ran), while
    `call.arguments` stays what the model proposed. `returned` is the tool's typed result, whole
    even when the model read one page of it (None for a refusal or a failure); `summary` the card's
    reading of it, made here in the core (`summary_of`), or of `result` when nothing returned.
    `provenance` says which arguments that ran were Hearth's defaults and what the user's edit
    changed, so no card calls a default an edit.
    """

    call: ToolCall
    outcome: Outcome
    observation: str
    ruling: Ruling
    duration_ms: float = 0.0
    undoable: bool = False
    result: str = ""
    arguments: dict[str, Any] | None = None
    returned: object = None
    summary: str = ""
    provenance: Provenance = field(default_factory=Provenance)

    def __post_init__(self) -> None:
        if not self.summary:
            read = self.result if self.returned is None else self.returned
            object.__setattr__(self, "summary", summary_of(read))


@dataclass(slots=True)
class TurnStats:
    """Per model call in the turn: tools offered, prompt size, tokens evaluated and written."""

    tools_offered: list[int] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    evaluated_tokens: list[int] = field(default_factory=list)
    completion_tokens: list[int] = field(default_factory=list)
    decode_seconds: list[float] = field(default_factory=list)

    @property
    def tokens_per_second(self) -> float:
        """Decode speed over the whole turn, tool calls' time excluded."""
        seconds = sum(self.decode_seconds)
        return sum(self.completion_tokens) / seconds if seconds > 0 else 0.0

    @property
    def steps(self) -> int:
        return len(self.prompt_tokens)

    @property
    def context_used(self) -> int:
        """Tokens of the model's context the conversation fills once the turn has ended."""
        return (self.prompt_tokens or [0])[-1] + (self.completion_tokens or [0])[-1]


@dataclass(frozen=True, slots=True)
class TurnDone:
    message: Message
    stop_reason: str
    stats: TurnStats


@dataclass(frozen=True, slots=True)
class TurnFailed:
    error: Exception


Step = (
    ToolsOffered
    | PromptProgress
    | ReasoningDelta
    | AnswerDelta
    | ToolProposed
    | ConsentAsked
    | CallMalformed
    | ToolRan
    | TurnDone
    | TurnFailed
)
