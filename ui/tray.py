"""The tray icon, the quick-ask window it opens, and desktop notifications.

A notification goes out when a reply that took a while finishes, or a tool call waits for
approval, while the user is looking at something else.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QCursor, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSystemTrayIcon,
    QVBoxLayout,
    QWidget,
)

from hearth import shown
from hearth.ui import theme
from hearth.ui.chat.controller import ChatController
from hearth.ui.chat.view import TranscriptView
from hearth.ui.context import UiContext
from hearth.ui.main_window import MainWindow
from hearth.ui.voice.input import VoiceInput, VoiceState
from hearth.ui.voice.widgets import VoiceButton, VoiceStrip, attach

LONG_TASK_S = 10.0
EXCERPT_CHARS = 120
BUSY = "Hearth is still answering in the main window."


class QuickAsk(QWidget):
    """A small window on top of everything: ask one thing and watch the answer arrive.

    It is a second view of the chat's transcript, so cards can be answered here too. Its mic
    puts what the user says into the question box, like the composer's.
    """

    open_main = Signal()

    def __init__(
        self, controller: ChatController, context: UiContext, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent, Qt.WindowType.Tool | Qt.WindowType.WindowStaysOnTopHint)
        self.setObjectName("quickAsk")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setWindowTitle("Ask Hearth")
        self.resize(560, 420)
        self.controller = controller
        self.question = QLineEdit()
        self.question.setPlaceholderText("Ask Hearth…")
        self.question.returnPressed.connect(self.ask)
        self.view = TranscriptView()
        self.view.setModel(controller.transcript)
        self.view.delegate.card_answered.connect(controller.answer)
        self.view.delegate.undo_requested.connect(controller.undo)
        controller.consent_did_ask.connect(self._consent_asked)
        self.mic = VoiceButton()
        self.voice_strip = VoiceStrip()
        self.note = QLabel()
        self.note.setObjectName("hint")
        self.note.setWordWrap(True)
        self.note.hide()
        self.voice = VoiceInput(context, self)
        self._connect_voice()
        more = QPushButton("Open in Hearth")
        more.setProperty("flat", True)
        more.clicked.connect(self.open_main)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 10)
        row = QHBoxLayout()
        row.addWidget(self.question, 1)
        row.addWidget(self.mic)
        row.addWidget(more)
        layout.addLayout(row)
        layout.addWidget(self.voice_strip)
        layout.addWidget(self.note)
        layout.addWidget(self.view, 1)
        QShortcut(QKeySequence("Esc"), self, self._escape)

    def ask(self) -> None:
        text = self.question.text().strip()
        if not text:
            return
        if self.controller.busy:
            self.question.setPlaceholderText(BUSY)
            return
        self.controller.new_conversation()
        if self.controller.send(text):
            self.question.clear()

    def _connect_voice(self) -> None:
        voice = self.voice
        attach(voice, self.mic, self.voice_strip)
        voice.state_did_change.connect(self._voice_state)
        voice.transcribed.connect(self._heard)
        voice.said.connect(self._voice_said)
        voice.check()

    def _voice_state(self, state: VoiceState) -> None:
        if state is VoiceState.RECORDING:
            self.note.hide()

    def _heard(self, text: str) -> None:
        current = self.question.text().rstrip()
        self.question.setText(f"{current} {text}" if current else text)
        self.question.setFocus()
        if self.voice.send_at_once:
            self.ask()

    def _voice_said(self, text: str) -> None:
        self.note.setText(text)
        self.note.show()

    def toggle(self) -> None:
        if self.isVisible() and self.isActiveWindow():
            self.hide()
            return
        screen = QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()
        area = screen.availableGeometry()
        self.move(area.center() - self.rect().center())
        self.show()
        self.raise_()
        self.activateWindow()
        self.question.setFocus()

    def _escape(self) -> None:
        if self.voice.state in (VoiceState.RECORDING, VoiceState.TRANSCRIBING):
            self.voice.cancel()
        elif self.controller.busy:
            self.controller.stop()
        else:
            self.hide()

    def _consent_asked(self, call_id: str) -> None:
        if self.isVisible():
            self.view.show_card(call_id, focus=True)


class Tray(QObject):
    """Hearth in the system tray: quick ask, show the window, quit; and notifications."""

    notified = Signal(str, str)  # (title, text), whether or not the desktop could show it

    def __init__(self, window: MainWindow, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window
        self.quick_ask = QuickAsk(window.controller, window.context)
        self.quick_ask.open_main.connect(self.show_window)
        self.icon = QSystemTrayIcon(theme.app_icon(), self)
        self.icon.setToolTip("Hearth")
        self.menu = QMenu()
        self.menu.addAction("Quick ask…", self.quick_ask.toggle)
        self.menu.addAction("Show Hearth", self.show_window)
        self.menu.addSeparator()
        self.menu.addAction("Quit Hearth", window.close)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        self.icon.messageClicked.connect(self.show_window)
        window.controller.turn_did_finish.connect(self._turn_finished)
        window.controller.consent_did_ask.connect(self._consent_asked)
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.icon.show()

    def show_window(self) -> None:
        self.quick_ask.hide()
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()

    def notify(self, title: str, text: str) -> None:
        # An answer's excerpt and a tool's name may quote outside text.
        title, text = shown(title), shown(text)
        if self.icon.isVisible() and QSystemTrayIcon.supportsMessages():
            self.icon.showMessage(title, text, theme.app_icon(), 8000)
        self.notified.emit(title, text)

    def hide(self) -> None:
        self.quick_ask.hide()
        self.icon.hide()

    def _user_is_watching(self) -> bool:
        return self.window.isActiveWindow() or self.quick_ask.isActiveWindow()

    def _turn_finished(self, seconds: float, answer: str) -> None:
        if seconds < LONG_TASK_S or self._user_is_watching():
            return
        excerpt = " ".join(shown(answer, lines=True).split())
        if len(excerpt) > EXCERPT_CHARS:
            excerpt = excerpt[: EXCERPT_CHARS - 1] + "…"
        self.notify("Hearth has finished", excerpt or "Your reply is ready.")

    def _consent_asked(self, call_id: str) -> None:
        if self._user_is_watching():
            return
        card = self.window.controller.transcript.card(call_id)
        tool = card.tool if card else "A tool"
        self.notify("Hearth needs your approval", f"{tool} is waiting for you to allow or deny it.")

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.quick_ask.toggle()
        elif reason == QSystemTrayIcon.ActivationReason.DoubleClick:
            self.show_window()
