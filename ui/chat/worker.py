"""The one inference thread: it opens sessions, runs turns and reports each step as a signal.

The Qt main thread never touches the model. Turns queue on this thread in the order they were
sent; Stop is a `CancelToken` the engine checks between tokens, and consent answers travel back
through the `ConsentRequest` itself, which is safe to answer from any thread.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QThread, Signal, Slot

from hearth import (
    AgentConfig,
    AgentSession,
    AnswerDelta,
    Assistant,
    CancelToken,
    CpuMeter,
    ReasoningDelta,
    SpeedReport,
    Step,
    ToolChoice,
    ToolProposed,
    TurnDone,
    TurnFailed,
    conversation_title,
)


@dataclass(frozen=True)
class TurnRequest:
    """One message to answer; `conversation_id` None starts a new conversation."""

    turn: int
    conversation_id: int | None
    text: str
    cancel: CancelToken = field(default_factory=CancelToken)
    tool_choice: ToolChoice = "auto"


@dataclass(frozen=True)
class StepEvent:
    """A step of turn `turn`; a finished turn also carries the speed measured on this thread."""

    turn: int
    step: Step
    tokens_per_second: float = 0.0  # TurnDone: measured decode speed
    context_used: int = 0  # TurnDone: tokens the conversation now fills
    speed: SpeedReport | None = None  # TurnDone: against the usual speed, when long enough


class SpeedMeter:
    """Decode speed from the deltas' arrival times, leaving out prefill and tool runs."""

    def __init__(self) -> None:
        self.tokens = 0
        self.seconds = 0.0
        self.last_segment_tokens = 0
        self._segment_start: float | None = None
        self._segment_last = 0.0

    def delta(self) -> None:
        now = time.perf_counter()
        if self._segment_start is None:
            self._segment_start = now
            self.last_segment_tokens = 0
        self._segment_last = now
        self.last_segment_tokens += 1

    def segment_ended(self) -> None:
        if self._segment_start is not None and self.last_segment_tokens > 1:
            self.seconds += self._segment_last - self._segment_start
            self.tokens += self.last_segment_tokens - 1
        self._segment_start = None

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0


class _Worker(QObject):
    step_did_arrive = Signal(object)  # StepEvent
    conversation_did_open = Signal(int, int)  # (turn, conversation id)
    turn_did_end = Signal(int)

    def __init__(self, assistant: Assistant, config: AgentConfig | None) -> None:
        super().__init__()
        self._assistant = assistant
        self._config = config
        self._sessions: dict[int, AgentSession] = {}
        self._models = assistant.models

    @Slot(object)
    def run_turn(self, request: TurnRequest) -> None:
        try:
            session = self._session(request)
            self.conversation_did_open.emit(request.turn, session.conversation_id)
            self._stream(session, request)
        except Exception as error:  # shown to the user like any failed turn
            self.step_did_arrive.emit(StepEvent(request.turn, TurnFailed(error)))
        finally:
            self.turn_did_end.emit(request.turn)

    def _session(self, request: TurnRequest) -> AgentSession:
        if request.conversation_id is not None:
            cached = self._sessions.get(request.conversation_id)
            # A model switched since the session opened makes it stale.
            if cached is not None and cached.model is self._assistant.model:
                return cached
        session = self._assistant.session(
            request.conversation_id, title=conversation_title(request.text), config=self._config
        )
        self._sessions[session.conversation_id] = session
        return session

    def _stream(self, session: AgentSession, request: TurnRequest) -> None:
        meter = SpeedMeter()
        cpu = CpuMeter()
        steps = session.run_turn(request.text, request.cancel, tool_choice=request.tool_choice)
        for step in steps:
            if isinstance(step, ReasoningDelta | AnswerDelta):
                meter.delta()
            elif isinstance(step, ToolProposed | TurnDone):
                meter.segment_ended()
            if isinstance(step, TurnDone):
                step_event = self._finished(request.turn, step, meter, session, cpu)
            else:
                step_event = StepEvent(request.turn, step)
            self.step_did_arrive.emit(step_event)

    def _finished(
        self, turn: int, done: TurnDone, meter: SpeedMeter, session: AgentSession, cpu: CpuMeter
    ) -> StepEvent:
        prompt = done.stats.prompt_tokens[-1] if done.stats.prompt_tokens else 0
        report = self._models.speeds.check(
            session.model.info, meter.tokens, meter.seconds, cpu.others_cores()
        )
        return StepEvent(
            turn,
            done,
            tokens_per_second=meter.tokens_per_second,
            context_used=prompt + meter.last_segment_tokens,
            speed=report,
        )


class Inference(QObject):
    """Owns the inference QThread; turns submitted here run there, one after another."""

    step_did_arrive = Signal(object)  # StepEvent, on the main thread
    conversation_did_open = Signal(int, int)  # (turn, conversation id)
    turn_did_end = Signal(int)
    _turn_requested = Signal(object)

    def __init__(
        self, assistant: Assistant, config: AgentConfig | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._thread = QThread(self)
        self._thread.setObjectName("hearth-inference")
        self._worker = _Worker(assistant, config)
        self._worker.moveToThread(self._thread)
        self._turn_requested.connect(self._worker.run_turn)
        self._worker.step_did_arrive.connect(self.step_did_arrive)
        self._worker.conversation_did_open.connect(self.conversation_did_open)
        self._worker.turn_did_end.connect(self.turn_did_end)
        self._thread.start()

    def submit(self, request: TurnRequest) -> None:
        self._turn_requested.emit(request)

    @property
    def running(self) -> bool:
        return self._thread.isRunning()

    def shutdown(self) -> None:
        """Stop the thread once its current turn has ended (cancel that turn first)."""
        self._thread.quit()
        self._thread.wait()
