"""One surface's voice input: record while the user talks, then transcribe on the pool.

The composer and the quick-ask window each have one; they share the core `Voice` (and its
loaded model) through the `UiContext`, and only one of them listens at a time. The sound lives
in memory from the first block to the transcript, and is dropped then.
"""

from __future__ import annotations

import enum
import threading
from typing import TYPE_CHECKING, ClassVar

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from hearth import HearthError, VoiceError
from hearth.ui.context import UiContext
from hearth.ui.errors import describe_error
from hearth.ui.ops import run_op

if TYPE_CHECKING:
    from hearth import Microphone, Readiness, Recording, Transcript

METER_MS = 33  # the level meter's refresh: about 30 frames a second
CHECKING = "Checking the microphone and the speech model…"
HEARD_NOTHING = "Heard nothing: check that the right microphone is chosen and not muted."
OTHER_WINDOW = "Hearth is already listening in another window."


class VoiceState(enum.Enum):
    """Where voice input is: the button and the strip show it."""

    CHECKING = "checking"
    UNAVAILABLE = "unavailable"
    IDLE = "idle"
    RECORDING = "recording"
    TRANSCRIBING = "transcribing"


class VoiceInput(QObject):
    """Start, finish or cancel a recording; the transcript comes back as `transcribed`."""

    state_did_change = Signal(object)  # VoiceState
    level_did_change = Signal(float, float)  # (level 0..1, seconds recorded)
    transcribed = Signal(str)  # the words, never empty
    said = Signal(str)  # one line for the user: heard nothing, an error, another window

    _listening: ClassVar[VoiceInput | None] = None

    def __init__(self, context: UiContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.state = VoiceState.CHECKING
        self.problem: str | None = CHECKING
        self._microphone: Microphone | None = None
        self._cancel = threading.Event()
        self._meter = QTimer(self, interval=METER_MS)
        self._meter.timeout.connect(self._tick)
        context.voice_did_change.connect(self.check)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.cancel)  # never leave PortAudio's stream open

    @property
    def send_at_once(self) -> bool:
        return self.context.voice.settings.send_at_once

    def check(self) -> None:
        """Find out again whether voice can work (a microphone plugged in, a model downloaded)."""
        if self.state in (VoiceState.RECORDING, VoiceState.TRANSCRIBING):
            return
        run_op(
            self.context.pool,
            lambda: self.context.voice.readiness(),  # voice is made there, not on this thread
            receiver=self,
            success=self._checked,
            failure=self._check_failed,
        )

    def toggle(self) -> None:
        """Start listening, or finish if already listening (a click, or the shortcut)."""
        if self.state is VoiceState.RECORDING:
            self.finish()
        else:
            self.start()

    def start(self) -> None:
        if self.state is not VoiceState.IDLE:
            if self.problem and self.state is VoiceState.UNAVAILABLE:
                self.said.emit(self.problem)
            return
        if VoiceInput._listening is not None:
            self.said.emit(OTHER_WINDOW)
            return
        microphone = self.context.voice.microphone()
        try:
            microphone.start()
        except VoiceError as error:
            self.said.emit(str(error))
            self.check()
            return
        VoiceInput._listening, self._microphone = self, microphone
        self._cancel = threading.Event()
        self._meter.start()
        self._set_state(VoiceState.RECORDING)
        # Load the model while the user talks, so the transcript follows the release at once.
        run_op(self.context.pool, self.context.voice.load_speech_model, receiver=self)

    def finish(self) -> None:
        """Stop listening and transcribe what was heard."""
        recording = self._release()
        if recording is None:
            return
        self._set_state(VoiceState.TRANSCRIBING)
        cancel = self._cancel
        run_op(
            self.context.pool,
            lambda: self.context.voice.transcribe(recording, cancel=cancel),
            receiver=self,
            success=lambda transcript: self._transcribed(transcript, cancel),
            failure=lambda error: self._failed(error, cancel),
        )

    def cancel(self) -> None:
        """Stop listening, or stop transcribing, and forget the sound."""
        self._cancel.set()
        if self._microphone is not None:
            self._microphone.cancel()
            self._release()
        if self.state in (VoiceState.RECORDING, VoiceState.TRANSCRIBING):
            self._set_state(VoiceState.IDLE)

    def _release(self) -> Recording | None:
        microphone, self._microphone = self._microphone, None
        self._meter.stop()
        if VoiceInput._listening is self:
            VoiceInput._listening = None
        return microphone.stop() if microphone is not None else None

    def _tick(self) -> None:
        microphone = self._microphone
        if microphone is None:
            return
        recording = microphone.recording
        if recording is None:
            return
        self.level_did_change.emit(recording.level, recording.seconds)
        if not microphone.active:  # full, or the device went away
            self.finish()

    def _transcribed(self, transcript: Transcript, cancel: threading.Event) -> None:
        if cancel.is_set():  # cancelled meanwhile; a new recording may be under way
            return
        self._set_state(VoiceState.IDLE)
        if transcript.text:
            self.transcribed.emit(transcript.text)
        else:
            self.said.emit(HEARD_NOTHING)

    def _failed(self, error: Exception, cancel: threading.Event) -> None:
        if cancel.is_set():
            return
        self._set_state(VoiceState.IDLE)
        if isinstance(error, HearthError):
            self.said.emit(describe_error(error)[0])
        else:  # our bug: the full report, not a hint line
            self.context.errors.show(None, "transcribe what you said", error)
        self.check()

    def _check_failed(self, error: Exception) -> None:
        from hearth import Readiness  # by now voice's modules are loaded

        self._checked(Readiness(describe_error(error)[0]))

    def _checked(self, readiness: Readiness) -> None:
        if self.state in (VoiceState.RECORDING, VoiceState.TRANSCRIBING):
            return
        self.problem = readiness.problem
        self._set_state(VoiceState.IDLE if readiness.ready else VoiceState.UNAVAILABLE)

    def _set_state(self, state: VoiceState) -> None:
        self.state = state
        self.state_did_change.emit(state)
