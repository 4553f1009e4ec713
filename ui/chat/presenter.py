"""Turn the agent's steps into transcript rows: streamed text, tool cards and their outcomes."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from hearth import (
    AnswerDelta,
    CallMalformed,
    ConsentAsked,
    Decider,
    ReasoningDelta,
    ToolProposed,
    ToolRan,
    ToolsOffered,
    TurnDone,
    TurnFailed,
    offered_line,
)
from hearth.ui.chat.changes import Asking, Ran, Settled
from hearth.ui.chat.entries import CardState, ReasoningEntry, Tone, ToolCardEntry
from hearth.ui.chat.transcript import TranscriptModel
from hearth.ui.chat.worker import StepEvent

RESULT_CHARS = 4000  # the card summarises; the rest is behind "Show details"
MALFORMED = "The model tried to call a tool, but the call was not valid: {reason}"
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
    """Shows the steps of the running turn in a transcript.

    `titles` gives each connector's title by its name (read when tools are offered, since
    plugins come and go); a connector without one is named by its name.
    """

    def __init__(
        self,
        transcript: TranscriptModel,
        titles: Callable[[], Mapping[str, str]] = dict,
    ) -> None:
        self.transcript = transcript
        self._titles = titles
        self._tools: ReasoningEntry | None = None  # the Thoughts row showing the turn's tools

    def begin(self, text: str) -> None:
        self._tools = None
        self.transcript.add_user(text)

    def show(self, event: StepEvent) -> None:
        step = event.step
        if isinstance(step, ToolsOffered):
            line = offered_line(step, self._titles())
            self._tools = self.transcript.show_tools(
                self._tools, line, left_out=bool(step.left_out)
            )
        elif isinstance(step, ReasoningDelta):
            self.transcript.stream_reasoning(step.text)
        elif isinstance(step, AnswerDelta):
            self.transcript.stream_answer(step.text)
        elif isinstance(step, ToolProposed):
            self.transcript.add_card(card_for(step))
        elif isinstance(step, ConsentAsked):
            self._asked(step)
        elif isinstance(step, CallMalformed):
            self.transcript.add_notice(MALFORMED.format(reason=step.reason.rstrip(".")) + ".")
        elif isinstance(step, ToolRan):
            self._ran(step)
        elif isinstance(step, TurnDone):
            self._done(step)
        elif isinstance(step, TurnFailed):
            self._settle_cards()
            self.transcript.add_notice(f"The reply failed: {step.error}", "error")

    def _asked(self, step: ConsentAsked) -> None:
        request = step.request
        asking = Asking(
            reason=f"{request.reason}. {request.no_grant}" if request.no_grant else request.reason,
            rule=request.rule_text,
            taint=tuple(line.sentence for line in request.taint),
            scopes=request.scopes,
            scope_labels=tuple(request.scope_label(scope) for scope in request.scopes),
            # No "Allow for…" that could not cover this call: the reason says why instead.
            durations=() if request.no_grant else request.durations,
            preview=request.preview,
            slots=request.slots,
            check=request.tool.validate,
            countdown=request,
            arguments=dict(request.call.arguments),
            proposed=dict(request.edited_from) if request.edited_from is not None else None,
            problems=request.problems,
            overridden=request.overridden_rule,
        )
        self.transcript.update_card(request.call.id, asking)

    def _ran(self, step: ToolRan) -> None:
        # The core says what the user's edit changed; a default Hearth filled in is no edit.
        edited_from = step.provenance.edited_from
        ran = Ran(
            outcome=step.outcome,
            result=short_result(step.result),
            summary=step.summary,
            ruling=step.ruling,
            duration_ms=step.duration_ms,
            undoable=step.undoable,
            arguments=dict(step.arguments or {}) if edited_from is not None else None,
            proposed=dict(edited_from) if edited_from is not None else None,
            filled=dict(step.provenance.filled),
            # The user's "allow" never took effect; the ruling says why.
            answer_void=not step.ruling.allowed and step.ruling.decider is not Decider.USER,
        )
        self.transcript.update_card(step.call.id, ran)

    def _settle_cards(self) -> None:
        """Cards of a failed turn stop waiting and claim nothing: their calls never finished."""
        for entry in self.transcript.entries:
            if isinstance(entry, ToolCardEntry) and entry.state is not CardState.DONE:
                settled = Settled("The reply failed before this call finished.")
                self.transcript.update_card(entry.call_id, settled)

    def _done(self, step: TurnDone) -> None:
        self.transcript.end_streams()
        content = step.message.content.strip()
        if step.stop_reason == "stopped" and content:
            # Hearth wrote this reply itself (it gave up on a loop), so it was never streamed.
            self.transcript.add_answer(content)
        notice = _STOP_NOTICES.get(step.stop_reason)
        if notice is not None:
            self.transcript.add_notice(*notice)
