"""The chat's conductor: sends messages to the inference thread, shows what comes back, and
carries the user's consent answers, stops and undos to the core."""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from hearth import (
    AgentConfig,
    Answer,
    ConsentAsked,
    ConsentRequest,
    Deny,
    EditArguments,
    HearthError,
    PromptProgress,
    SpeedReport,
    StoredConversation,
    ToolChoice,
    ToolRan,
    TurnDone,
    TurnFailed,
    Undone,
    connector_titles,
    conversation_title,
)
from hearth.ui.chat.changes import Answered, StillAsking, UndoChanged
from hearth.ui.chat.entries import AnswerEntry, NoticeEntry, UndoState
from hearth.ui.chat.history import history_entries
from hearth.ui.chat.presenter import TurnPresenter
from hearth.ui.chat.transcript import TranscriptModel
from hearth.ui.chat.worker import Inference, StepEvent, TurnRequest
from hearth.ui.context import UiContext
from hearth.ui.ops import run_op

NEW_TITLE = "New conversation"
NO_MODEL = "No model is loaded yet. Open Models to download one or import a GGUF file."


@dataclass(frozen=True)
class TurnSpeed:
    tokens_per_second: float
    context_used: int
    report: SpeedReport | None = None  # against this computer's usual speed


class ChatController(QObject):
    """One chat: its transcript, its conversation, and the turn running in it."""

    busy_did_change = Signal(bool)
    conversation_did_change = Signal(object, str)  # (conversation id or None, title)
    conversation_did_open = Signal(int)  # a new conversation was stored under this id
    consent_did_ask = Signal(str)  # call id of the card waiting for the user
    turn_did_finish = Signal(float, str)  # (seconds it took, the answer's first words)
    speed_did_change = Signal(object)  # TurnSpeed

    def __init__(
        self,
        context: UiContext,
        config: AgentConfig | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.transcript = TranscriptModel(self)
        self.presenter = TurnPresenter(
            self.transcript, lambda: connector_titles(context.assistant.connectors())
        )
        self.error_parent: QWidget | None = None
        self.conversation_id: int | None = None
        self.title = NEW_TITLE
        self._inference = Inference(context.assistant, config, self)
        self._inference.step_did_arrive.connect(self._show_step)
        self._inference.conversation_did_open.connect(self._conversation_opened)
        self._inference.turn_did_end.connect(self._turn_ended)
        self._turns = 0
        self._current_turn: int | None = None  # the turn whose steps this transcript shows
        self._running_turn: int | None = None  # the turn the inference thread is busy with
        self._request: TurnRequest | None = None
        self._pending: dict[str, ConsentRequest] = {}
        self._loading: int | None = None
        self._started = 0.0

    @property
    def busy(self) -> bool:
        return self._running_turn is not None

    @property
    def thread_running(self) -> bool:
        """Whether the inference thread is still alive (it ends with `shutdown`)."""
        return self._inference.running

    def send(self, text: str, tool_choice: ToolChoice = "auto") -> bool:
        """Start answering `text`; False (with the reason shown) when it cannot start now."""
        text = text.strip()
        if not text or self.busy or self._loading is not None:
            return False
        if self.context.assistant.model is None:
            entries = self.transcript.entries
            last = entries[-1] if entries else None
            if not (isinstance(last, NoticeEntry) and last.text == NO_MODEL):
                self.transcript.add_notice(NO_MODEL, "warning")  # said once, not once a try
            return False
        self._turns += 1
        request = TurnRequest(self._turns, self.conversation_id, text, tool_choice=tool_choice)
        self._current_turn = self._running_turn = request.turn
        self._request = request
        self._started = time.monotonic()
        self.presenter.begin(text)
        self.busy_did_change.emit(True)
        self._inference.submit(request)
        return True

    def stop(self) -> None:
        """Stop the running turn: questions still open are answered no, generation ends."""
        for call_id in list(self._pending):
            self.answer(call_id, Deny("the user stopped the reply"))
        if self._request is not None:
            self._request.cancel.cancel()

    def answer(self, call_id: str, answer: Answer) -> None:
        request = self._pending.pop(call_id, None)
        if request is None:
            return
        try:
            request.answer(answer)
        except HearthError as error:
            # The question is still open: the card keeps its buttons and the error shows once.
            self._pending[call_id] = request
            self.transcript.update_card(call_id, StillAsking())
            self.context.errors.show(self.error_parent, "apply your answer", error)
            return
        answered = Answered(request.describe(answer))
        if isinstance(answer, EditArguments):
            edited = dict(answer.arguments)
            answered = Answered(request.describe(answer), edited, dict(request.call.arguments))
        self.transcript.update_card(call_id, answered)

    def undo(self, call_id: str) -> None:
        """Revert an action a card ran, on the worker pool."""
        self.transcript.update_card(call_id, UndoChanged(UndoState.RUNNING))

        def undone(result: Undone) -> None:
            note = f"Undone: {result.summary}"
            self.transcript.update_card(call_id, UndoChanged(UndoState.DONE, note))

        def failed(error: Exception) -> None:
            self.transcript.update_card(call_id, UndoChanged(UndoState.AVAILABLE))
            self.context.errors.show(self.error_parent, "undo that action", error)

        assistant = self.context.assistant
        run_op(
            self.context.pool,
            lambda: assistant.undo(call_id),
            receiver=self,
            success=undone,
            failure=failed,
        )

    def new_conversation(self) -> None:
        self._leave()
        self._set_conversation(None, NEW_TITLE)
        self.transcript.clear()

    def open_conversation(self, conversation_id: int) -> None:
        """Show a stored conversation; the reply running elsewhere is stopped."""
        if conversation_id == self.conversation_id and self._loading is None:
            return
        self._leave()
        self._loading = conversation_id
        self._set_conversation(conversation_id, "")
        self.transcript.clear()
        assistant = self.context.assistant

        def failed(error: Exception) -> None:
            self._loading = None
            self.context.errors.show(self.error_parent, "open that conversation", error)

        run_op(
            self.context.pool,
            lambda: assistant.read_conversation(conversation_id),
            receiver=self,
            success=self._show_history,
            failure=failed,
        )

    def conversation_renamed(self, conversation_id: int, title: str) -> None:
        if conversation_id == self.conversation_id:
            self._set_conversation(conversation_id, title)

    def conversation_deleted(self, conversation_id: int) -> None:
        if conversation_id == self.conversation_id:
            self.new_conversation()

    def shutdown(self) -> None:
        """Stop any reply and end the inference thread; call before the window closes."""
        self.stop()
        self._inference.shutdown()

    def _leave(self) -> None:
        """Stop showing the current turn (and stop it): the transcript is about to change."""
        self.stop()
        self._current_turn = None
        self._loading = None

    def _set_conversation(self, conversation_id: int | None, title: str) -> None:
        self.conversation_id, self.title = conversation_id, title
        self.conversation_did_change.emit(conversation_id, title)

    def _show_history(self, stored: StoredConversation) -> None:
        if stored.conversation_id != self._loading:
            return  # the user moved on before it arrived
        self._loading = None
        self.transcript.load(history_entries(stored))
        self._set_conversation(stored.conversation_id, stored.title)
        # The chip shows what the conversation fills, as its last turn left it (here or in
        # the terminal).
        self.speed_did_change.emit(TurnSpeed(0.0, stored.tokens))

    def _show_step(self, event: StepEvent) -> None:
        step = event.step
        if event.turn != self._current_turn:
            if isinstance(step, ConsentAsked):
                step.request.answer(Deny("the conversation was closed"))
            return
        if isinstance(step, PromptProgress):
            self.transcript.show_reading(step.read, step.total)
            return
        if isinstance(step, ConsentAsked):
            self._pending[step.request.call.id] = step.request
        elif isinstance(step, ToolRan):
            self._pending.pop(step.call.id, None)  # e.g. the question timed out
        self.presenter.show(event)
        if isinstance(step, ConsentAsked):
            self.consent_did_ask.emit(step.request.call.id)
        elif isinstance(step, TurnDone):
            self.speed_did_change.emit(
                TurnSpeed(event.tokens_per_second, event.context_used, event.speed)
            )
        elif isinstance(step, TurnFailed):
            self.context.errors.show(self.error_parent, "finish the reply", step.error)

    def _conversation_opened(self, turn: int, conversation_id: int) -> None:
        if turn != self._current_turn or conversation_id == self.conversation_id:
            return
        request = self._request
        title = conversation_title(request.text) if request else NEW_TITLE
        self._set_conversation(conversation_id, title)
        self.conversation_did_open.emit(conversation_id)

    def _turn_ended(self, turn: int) -> None:
        if turn != self._running_turn:
            return
        shown = turn == self._current_turn
        self._running_turn = self._request = None
        self._pending.clear()
        if shown:
            self.transcript.end_streams()
        self.busy_did_change.emit(False)
        if shown:
            self.turn_did_finish.emit(time.monotonic() - self._started, self._last_answer())

    def _last_answer(self) -> str:
        for entry in reversed(self.transcript.entries):
            if isinstance(entry, AnswerEntry):
                return entry.text.strip()
        return ""
