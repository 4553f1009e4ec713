"""The chat page: title and model chip, the transcript, a first-run banner and the composer."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from hearth import Answer
from hearth.ui import theme
from hearth.ui.chat.composer import Composer
from hearth.ui.chat.controller import ChatController
from hearth.ui.chat.rows import MAX_COLUMN, SIDE
from hearth.ui.chat.status import ModelStatus
from hearth.ui.chat.view import TranscriptView
from hearth.ui.context import UiContext
from hearth.ui.voice.input import VoiceInput, VoiceState
from hearth.ui.voice.widgets import SHORTCUT, attach

# Each hint's words are held together, so a narrow window wraps the line only between hints.
KEY_HINTS = " · ".join(
    hint.replace(" ", "\N{NO-BREAK SPACE}")
    for hint in (
        "Enter sends",
        "Shift+Enter adds a line",
        "Esc stops",
        "Ctrl+T uses a tool",
        "Ctrl+N starts anew",
    )
)
HINT_SHOW_MS = 5000
TITLE_MIN_CHARS = 8
CHIP_MIN_WIDTH = 140


class ElidedLabel(QLabel):
    """A one-line label that ends in "…" instead of being cut off mid-letter."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def minimumSizeHint(self) -> QSize:
        # A few letters and the "…" stay however narrow the window: the title never vanishes.
        width = self.fontMetrics().horizontalAdvance("W" * TITLE_MIN_CHARS + "…")
        return QSize(width, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        return self.minimumSizeHint()

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self._elide()

    def full_text(self) -> str:
        return self._full

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        self.setText(
            self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, self.width())
        )


class FirstRunBanner(QFrame):
    """Shown while no model is loaded: what is missing and where to get it."""

    open_models = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 10, 10, 10)
        icon = QLabel()
        icon.setPixmap(theme.icon("cpu", theme.current().warning).pixmap(20, 20))
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.button = QPushButton("Open Models")
        self.button.setProperty("accent", True)
        self.button.clicked.connect(self.open_models)
        row.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.message, 1)
        row.addWidget(self.button)

    def show_message(self, text: str, *, can_open_models: bool) -> None:
        self.message.setText(text)
        self.button.setVisible(can_open_models)
        self.show()


class ChatPanel(QWidget):
    """The chat as the user sees it; every action goes through its `ChatController`."""

    open_models_requested = Signal()

    def __init__(
        self, context: UiContext, controller: ChatController, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("chatPanel")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.context = context
        self.controller = controller
        controller.error_parent = self
        self.title = ElidedLabel()
        self.title.setObjectName("conversationTitle")
        self.status = ModelStatus(context)
        self.status.setMinimumWidth(CHIP_MIN_WIDTH)  # it gives way first; its tooltip has it all
        self.banner = FirstRunBanner()
        self.banner.hide()
        self.banner.open_models.connect(self.open_models_requested)
        self.view = TranscriptView()
        self.view.setModel(controller.transcript)
        self.composer = Composer()
        self.voice = VoiceInput(context, self)
        self.voice_escape = QShortcut(QKeySequence("Esc"), self, self.voice.cancel)
        self.voice_escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.voice_escape.setEnabled(False)  # only while listening: Esc stops a reply otherwise
        QShortcut(QKeySequence(SHORTCUT), self, self.voice.toggle)
        self.hint = QLabel(KEY_HINTS)
        self.hint.setObjectName("hint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)  # a narrow window shows the shortcuts on two lines
        self.hint.setContentsMargins(SIDE, 0, SIDE, 0)
        self._hint_timer = QTimer(self, singleShot=True, interval=HINT_SHOW_MS)
        self._hint_timer.timeout.connect(lambda: self.hint.setText(KEY_HINTS))
        self._lay_out()
        self._connect()
        self.title.set_full_text(controller.title)
        self.status.refresh()
        self.voice.check()

    def _lay_out(self) -> None:
        header = QWidget()
        header.setObjectName("chatHeader")
        header.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        top = QHBoxLayout(header)
        top.setContentsMargins(20, 10, 14, 10)
        top.addWidget(self.title, 1)
        top.addWidget(self.status)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(header)
        layout.addWidget(self.view, 1)
        layout.addLayout(self._centred(self.banner), 0)
        layout.addLayout(self._centred(self.composer), 0)
        layout.addSpacing(4)
        layout.addWidget(self.hint)
        layout.addSpacing(8)

    @staticmethod
    def _centred(widget: QWidget) -> QHBoxLayout:
        widget.setMaximumWidth(MAX_COLUMN + 16)
        row = QHBoxLayout()
        row.setContentsMargins(SIDE - 8, 6, SIDE - 8, 0)
        row.addStretch(1)
        row.addWidget(widget, 100)
        row.addStretch(1)
        return row

    def _connect(self) -> None:
        controller = self.controller
        self.composer.send_requested.connect(self._send)
        self.composer.stop_requested.connect(controller.stop)
        self._connect_voice()
        controller.busy_did_change.connect(self.composer.set_busy)
        controller.conversation_did_change.connect(
            lambda _id, title: self.title.set_full_text(title)
        )
        controller.consent_did_ask.connect(self._consent_asked)
        controller.speed_did_change.connect(self.status.show_speed)
        controller.turn_did_finish.connect(lambda *_: self.status.refresh())
        self.view.delegate.card_answered.connect(self._card_answered)
        self.view.delegate.undo_requested.connect(controller.undo)

    def _connect_voice(self) -> None:
        voice = self.voice
        attach(voice, self.composer.voice, self.composer.voice_strip)
        voice.state_did_change.connect(self._voice_state)
        voice.transcribed.connect(self._heard)
        voice.said.connect(self.show_hint)

    def _voice_state(self, state: VoiceState) -> None:
        self.voice_escape.setEnabled(state in (VoiceState.RECORDING, VoiceState.TRANSCRIBING))

    def _heard(self, text: str) -> None:
        self.composer.insert_transcript(text)
        if self.voice.send_at_once:
            self.composer.submit()

    def _send(self, text: str, tool_choice: str) -> None:
        if self.controller.send(text, "required" if tool_choice == "required" else "auto"):
            self.composer.sent()
            self.view.scroll_to_end()

    def _card_answered(self, call_id: str, answer: Answer) -> None:
        self.controller.answer(call_id, answer)
        # The card's buttons disappear; the keyboard goes back to writing.
        self.focus_composer()

    def _consent_asked(self, call_id: str) -> None:
        # Take the keyboard to the card unless the user is in the middle of writing.
        typing = self.composer.editor.hasFocus() and bool(self.composer.text().strip())
        self.view.show_card(call_id, focus=not typing)

    def show_hint(self, text: str) -> None:
        self.hint.setText(text)
        self._hint_timer.start()

    def show_first_run(self, text: str, *, can_open_models: bool) -> None:
        self.banner.show_message(text, can_open_models=can_open_models)

    def hide_first_run(self) -> None:
        self.banner.hide()

    def focus_composer(self) -> None:
        self.composer.editor.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def refresh_icons(self) -> None:
        self.composer.refresh_icons()
