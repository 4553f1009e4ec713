"""The push-to-talk button, its level meter, and the strip that shows a recording's state."""

from __future__ import annotations

import time

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from hearth.ui import theme
from hearth.ui.voice.input import VoiceInput, VoiceState

HOLD_S = 0.35  # pressed longer than this, the release finishes: push-to-talk
BARS = 14
SHORTCUT = "Ctrl+Shift+Space"
READY_TIP = (
    f"Voice input: hold to talk, or click to start and click again to finish ({SHORTCUT})."
    " The words go into the message box for you to check."
)
LISTENING = "Listening {clock} · release or click the mic to finish · Esc cancels"
TRANSCRIBING = "Transcribing on this computer…"


class VoiceButton(QToolButton):
    """A mic button that talks while held, or toggles on a short click; Space works the same.

    It announces `start_requested` and `finish_requested`; the `VoiceInput` decides.
    """

    start_requested = Signal()
    finish_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("voiceButton")
        self.setIconSize(QSize(18, 18))
        self.setFixedSize(36, 36)
        self.setProperty("flat", True)
        self._state = VoiceState.CHECKING
        self._pressed_at: float | None = None  # this press started the recording
        self._finish_on_release = False
        self.pressed.connect(self._pressed)
        self.released.connect(self._released)
        self.show_state(VoiceState.CHECKING, "Checking the microphone and the speech model…")

    def show_state(self, state: VoiceState, problem: str | None = None) -> None:
        self._state = state
        recording = state is VoiceState.RECORDING
        self.setEnabled(state in (VoiceState.IDLE, VoiceState.RECORDING))
        tip = READY_TIP
        if state is VoiceState.UNAVAILABLE:
            tip = f"Voice input is off: {problem}"
        elif state is VoiceState.CHECKING:
            tip = problem or READY_TIP
        elif recording:
            tip = "Listening: release, or click again, to finish."
        elif state is VoiceState.TRANSCRIBING:
            tip = TRANSCRIBING
        self.setToolTip(tip)
        self.setAccessibleName("Voice input")
        self.setAccessibleDescription(tip)
        self.setProperty("recording", recording)
        self.setProperty("flat", not recording)
        self.style().unpolish(self)
        self.style().polish(self)
        self.refresh_icon()

    def refresh_icon(self) -> None:
        colours = theme.current()
        colour = colours.on_accent if self._state is VoiceState.RECORDING else colours.muted
        name = "mic-off" if self._state is VoiceState.UNAVAILABLE else "mic"
        self.setIcon(theme.icon(name, colour))

    def _pressed(self) -> None:
        if self._state is VoiceState.RECORDING:
            self._finish_on_release = True
            return
        self._pressed_at = time.monotonic()
        self.start_requested.emit()

    def _released(self) -> None:
        held = time.monotonic() - self._pressed_at if self._pressed_at is not None else 0.0
        finish = self._finish_on_release or held >= HOLD_S
        self._pressed_at, self._finish_on_release = None, False
        if finish and self._state is VoiceState.RECORDING:
            self.finish_requested.emit()


class LevelMeter(QWidget):
    """A row of bars lit in proportion to the microphone's loudness."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.level = 0.0
        self.setFixedSize(BARS * 6, 16)
        self.setAccessibleName("Microphone level")

    def set_level(self, level: float) -> None:
        self.level = min(1.0, max(0.0, level))
        self.setAccessibleDescription(f"{round(self.level * 100)}%")
        self.update()

    def lit(self) -> int:
        return round(self.level * BARS)

    def paintEvent(self, event: QPaintEvent) -> None:
        colours = theme.current()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        lit = self.lit()
        for bar in range(BARS):
            height = 4 + 12 * (bar + 1) / BARS
            rect = QRectF(bar * 6, self.height() - height, 4, height)
            painter.setBrush(QColor(colours.accent if bar < lit else colours.border))
            painter.drawRoundedRect(rect, 1.5, 1.5)
        painter.end()


class VoiceStrip(QWidget):
    """Shown while listening or transcribing: what is happening, the meter, and Cancel."""

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("voiceStrip")
        self.dot = QLabel("●")
        self.dot.setObjectName("recordingDot")
        self.label = QLabel()
        self.label.setObjectName("hint")
        self.meter = LevelMeter()
        self.cancel = QPushButton("Cancel")
        self.cancel.setProperty("flat", True)
        self.cancel.clicked.connect(self.cancel_requested)
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 0, 0, 0)
        row.setSpacing(8)
        row.addWidget(self.dot)
        row.addWidget(self.meter)
        row.addWidget(self.label, 1)
        row.addWidget(self.cancel)
        self.hide()

    def show_state(self, state: VoiceState) -> None:
        listening = state is VoiceState.RECORDING
        self.setVisible(listening or state is VoiceState.TRANSCRIBING)
        self.dot.setVisible(listening)
        self.meter.setVisible(listening)
        if listening:
            self.show_level(0.0, 0.0)
        elif state is VoiceState.TRANSCRIBING:
            self.label.setText(TRANSCRIBING)

    def show_level(self, level: float, seconds: float) -> None:
        self.meter.set_level(level)
        minutes, secs = divmod(int(seconds), 60)
        self.label.setText(LISTENING.format(clock=f"{minutes}:{secs:02d}"))


def attach(voice: VoiceInput, button: VoiceButton, strip: VoiceStrip) -> None:
    """Drive `voice` from a mic button and show its state there and in `strip`."""
    button.start_requested.connect(voice.start)
    button.finish_requested.connect(voice.finish)
    strip.cancel_requested.connect(voice.cancel)
    voice.state_did_change.connect(lambda state: button.show_state(state, voice.problem))
    voice.state_did_change.connect(strip.show_state)
    voice.level_did_change.connect(strip.show_level)
