"""Where the user writes: a growing text box with Send, Stop, "use a tool" and push-to-talk.

Enter or Ctrl+Enter sends, Shift+Enter starts a new line.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPlainTextEdit, QToolButton, QVBoxLayout, QWidget

from hearth.ui import theme
from hearth.ui.voice.widgets import VoiceButton, VoiceStrip

MAX_LINES = 8
PLACEHOLDER = "Ask Hearth anything…"


class ComposerEdit(QPlainTextEdit):
    """A text box that sends on Enter and grows with its text up to a few lines."""

    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText(PLACEHOLDER)
        self.setTabChangesFocus(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document().contentsChanged.connect(self._grow)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.submitted.emit()
            return
        super().keyPressEvent(event)

    def _lines(self) -> int:
        return max(1, int(self.document().size().height()))

    def _grow(self) -> None:
        overflowing = self._lines() > MAX_LINES
        self.setVerticalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAsNeeded
            if overflowing
            else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        )
        self.updateGeometry()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # Typing past the edge scrolls by a line before the box has grown; once it has, the
        # whole text fits again and that line must come back into view.
        if self._lines() <= MAX_LINES:
            self.verticalScrollBar().setValue(0)

    def sizeHint(self) -> QSize:
        lines = min(MAX_LINES, self._lines())
        margins = self.contentsMargins()
        frame = 2 * self.document().documentMargin() + margins.top() + margins.bottom() + 2
        height = int(lines * self.fontMetrics().lineSpacing() + frame)
        return QSize(super().sizeHint().width(), height)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()


def _tool_button(icon_name: str, tip: str, *, accent: bool = False) -> QToolButton:
    button = QToolButton()
    button.setIconSize(QSize(18, 18))
    button.setToolTip(tip)
    button.setAccessibleName(tip)
    button.setProperty("accent", accent)
    button.setProperty("flat", not accent)
    button.setProperty("icon_name", icon_name)
    button.setFixedSize(36, 36)
    return button


class Composer(QFrame):
    """The message box and its buttons; it announces requests, the chat decides."""

    send_requested = Signal(str, str)  # (text, tool choice: "auto" or "required")
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.editor = ComposerEdit()
        self.editor.submitted.connect(self.submit)
        self.editor.textChanged.connect(self._update_buttons)
        self.editor.installEventFilter(self)
        self.use_tool = _tool_button("tool", "Use a tool for this message (Ctrl+T)")
        self.use_tool.setCheckable(True)
        self.voice = VoiceButton()
        self.voice_strip = VoiceStrip()
        self.stop = _tool_button("stop", "Stop the reply (Esc)")
        self.send = _tool_button("send", "Send (Enter)", accent=True)
        self.stop.clicked.connect(self.stop_requested)
        self.send.clicked.connect(self.submit)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        layout.setSpacing(4)
        layout.addWidget(self.editor)
        layout.addWidget(self.voice_strip)
        row = QHBoxLayout()
        row.setSpacing(6)
        row.addWidget(self.use_tool)
        row.addWidget(self.voice)
        row.addStretch(1)
        row.addWidget(self.stop)
        row.addWidget(self.send)
        layout.addLayout(row)
        self._busy = False
        self.refresh_icons()
        self._update_buttons()

    @property
    def tool_choice(self) -> str:
        return "required" if self.use_tool.isChecked() else "auto"

    def text(self) -> str:
        return self.editor.toPlainText()

    def set_text(self, text: str) -> None:
        self.editor.setPlainText(text)

    def submit(self) -> None:
        if self.text().strip() and not self._busy:
            self.send_requested.emit(self.text(), self.tool_choice)

    def insert_transcript(self, text: str) -> None:
        """Put what the user said where the cursor is, spaced from the words around it."""
        cursor = self.editor.textCursor()
        before = self.text()[: cursor.position()]
        if before and not before[-1].isspace():
            text = " " + text
        elif not before.strip():
            text = text[:1].upper() + text[1:]
        cursor.insertText(text)
        self.editor.setTextCursor(cursor)
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def sent(self) -> None:
        """The message was accepted: empty the box for the next one."""
        self.editor.clear()
        self.use_tool.setChecked(False)

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._update_buttons()

    def refresh_icons(self) -> None:
        colours = theme.current()
        self.voice.refresh_icon()
        for button in (self.use_tool, self.stop, self.send):
            # Stop is drawn in the text colour so that, off, its muted icon reads as disabled.
            colour = colours.muted
            if button is self.send:
                colour = colours.on_accent
            elif button is self.stop:
                colour = colours.text
            # The tool toggle's icon takes the accent when on, beside its checked background.
            checked = colours.accent if button is self.use_tool else None
            button.setIcon(theme.icon(button.property("icon_name"), colour, checked=checked))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.editor and event.type() in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
            self.setProperty("focused", event.type() == QEvent.Type.FocusIn)
            self.style().unpolish(self)
            self.style().polish(self)
        return super().eventFilter(watched, event)

    def _update_buttons(self) -> None:
        self.send.setEnabled(not self._busy and bool(self.text().strip()))
        self.stop.setEnabled(self._busy)
