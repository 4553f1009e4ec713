"""Turn the agent's steps into transcript rows: streamed text, tool cards and their outcomes."""

from __future__ import annotations

from hearth.agent import (
    AnswerDelta,
    ConsentAsked,
    ReasoningDelta,
    ToolProposed,
    ToolRan,
    TurnDone,
    TurnFailed,
)
from hearth.ui.chat.entries import CardState, Tone, ToolCardEntry, UndoState
from hearth.ui.chat.transcript import TranscriptModel
from hearth.ui.chat.worker import StepEvent

RESULT_CHARS = 600
_STOP_NOTICES: dict[str, tuple[str, Tone]] = {
    "cancelled": ("Stopped.", "info"),
    "max_tokens": ("The reply reached its length limit and was cut short.", "warning"),
    "context_full": (
        "This conversation has filled the model's memory. Start a new conversation to go on.",
        "warning",
    ),
    "repetition": ("The model started repeating itself, so Hearth stopped it.", "warning"),
}


def short_result(text: str) -> str:
    """What a tool returned, cut to fit on its card."""
    return text if len(text) <= RESULT_CHARS else text[: RESULT_CHARS - 1] + "…"


def card_for(step: ToolProposed) -> ToolCardEntry:
    return ToolCardEntry(
        call_id=step.call.id,
        tool=step.call.name,
        effect=step.tool.effect if step.tool else "",
        arguments=dict(step.call.arguments),
        preview=step.preview,
    )


class TurnPresenter:
    """Shows the steps of the running turn in a transcript."""

    def __init__(self, transcript: TranscriptModel) -> None:
        self.transcript = transcript

    def begin(self, text: str) -> None:
        self.transcript.add_user(text)

    def show(self, event: StepEvent) -> None:
        step = event.step
        if isinstance(step, ReasoningDelta):
            self.transcript.stream_reasoning(step.text)
        elif isinstance(step, AnswerDelta):
            self.transcript.stream_answer(step.text)
        elif isinstance(step, ToolProposed):
            self.transcript.add_card(card_for(step))
        elif isinstance(step, ConsentAsked):
            self._asked(step)
        elif isinstance(step, ToolRan):
            self._ran(step)
        elif isinstance(step, TurnDone):
            self._done(step)
        elif isinstance(step, TurnFailed):
            self.transcript.add_notice(f"The reply failed: {step.error}", "error")

    def _asked(self, step: ConsentAsked) -> None:
        request = step.request
        self.transcript.update_card(
            request.call.id,
            state=CardState.ASKING,
            reason=request.reason,
            rule=request.rule_text,
            taint=tuple(line.sentence for line in request.taint),
            scopes=request.scopes,
            durations=request.durations,
            preview=request.preview,
            check=request.tool.validate,
        )

    def _ran(self, step: ToolRan) -> None:
        self.transcript.update_card(
            step.call.id,
            state=CardState.DONE,
            outcome=step.outcome,
            result=short_result(step.result),
            ruling=step.ruling,
            duration_ms=step.duration_ms,
            undo=UndoState.AVAILABLE if step.undoable else UndoState.UNAVAILABLE,
        )

    def _done(self, step: TurnDone) -> None:
        self.transcript.end_streams()
        content = step.message.content.strip()
        if step.stop_reason == "stopped" and content:
            # Hearth wrote this reply itself (it gave up on a loop), so it was never streamed.
            self.transcript.add_answer(content)
        notice = _STOP_NOTICES.get(step.stop_reason)
        if notice is not None:
            self.transcript.add_notice(*notice)
