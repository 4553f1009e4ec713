"""The transcript view: a list view that follows the stream and opens a card on each tool row."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QRectF, Qt
from PySide6.QtGui import (
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QResizeEvent,
)
from PySide6.QtWidgets import QAbstractItemView, QFrame, QListView, QWidget

from hearth.ui import theme
from hearth.ui.chat.card import ToolCard
from hearth.ui.chat.delegate import TranscriptDelegate
from hearth.ui.chat.entries import ReasoningEntry, ToolCardEntry
from hearth.ui.chat.transcript import ENTRY_ROLE, TranscriptModel

STICK_SLACK = 24  # pixels from the bottom that still count as "following the stream"
WELCOME_TITLE = "What can I help with?"
WELCOME_TEXT = (
    "Hearth runs on this computer; nothing you type leaves it.\n"
    "Before any tool runs, you see what it will do and decide."
)


class TranscriptView(QListView):
    """Shows a `TranscriptModel`, following the stream unless the user scrolls up."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setUniformItemSizes(False)
        self.setMouseTracking(True)
        self.verticalScrollBar().setSingleStep(24)
        self.delegate = TranscriptDelegate(self)
        self.setItemDelegate(self.delegate)
        self._following = True
        self.verticalScrollBar().rangeChanged.connect(self._follow)
        self.verticalScrollBar().valueChanged.connect(self._note_position)

    def setModel(self, model: TranscriptModel) -> None:  # type: ignore[override]
        super().setModel(model)
        model.rowsInserted.connect(self._open_cards)
        model.modelReset.connect(self._reset)
        self._reset()

    def transcript(self) -> TranscriptModel:
        model = self.model()
        assert isinstance(model, TranscriptModel)
        return model

    def card(self, call_id: str) -> ToolCard | None:
        return self.delegate.card(call_id)

    def show_card(self, call_id: str, *, focus: bool = False) -> None:
        """Scroll to a card and, when asked, put the keyboard on its safe choice."""
        entry = self.transcript().card(call_id)
        if entry is None:
            return
        self.scrollTo(self.transcript().index_of(entry), QAbstractItemView.ScrollHint.EnsureVisible)
        card = self.card(call_id)
        if focus and card is not None:
            card.focus_default()

    def scroll_to_end(self) -> None:
        self._following = True
        self.scrollToBottom()

    def _reset(self) -> None:
        model = self.transcript()
        self.delegate.forget_layouts({entry.id for entry in model.entries})
        self._open_cards(QModelIndex(), 0, model.rowCount() - 1)
        self.scroll_to_end()

    def _open_cards(self, _parent: QModelIndex, first: int, last: int) -> None:
        model = self.transcript()
        for row in range(first, last + 1):
            if isinstance(model.entry(row), ToolCardEntry):
                self.openPersistentEditor(model.index(row))

    def _follow(self, _minimum: int, maximum: int) -> None:
        if self._following:
            self.verticalScrollBar().setValue(maximum)

    def _note_position(self, value: int) -> None:
        self._following = value >= self.verticalScrollBar().maximum() - STICK_SLACK

    def dataChanged(
        self,
        top_left: QModelIndex | QPersistentModelIndex,
        bottom_right: QModelIndex | QPersistentModelIndex,
        roles: Sequence[int] = (),
    ) -> None:
        super().dataChanged(top_left, bottom_right, list(roles))
        # A row that grew (streamed text, a card that changed) needs the rows below moved.
        self.scheduleDelayedItemsLayout()

    def viewportEvent(self, event: QEvent) -> bool:
        if isinstance(event, QResizeEvent) and event.size().width() != event.oldSize().width():
            # A top-to-bottom QListView lays its rows out again only when its height changes,
            # but rows here are as tall as their text is at this width: without a new layout a
            # narrower window leaves rows (and cards) overlapping the next one.
            self.scheduleDelayedItemsLayout()
        return super().viewportEvent(event)

    def doItemsLayout(self) -> None:
        super().doItemsLayout()
        # Rows may have changed height without the view moving the cards along with them.
        self.updateEditorGeometries()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        index = self.currentIndex()
        entry = index.data(ENTRY_ROLE) if index.isValid() else None
        if event.matches(QKeySequence.StandardKey.Copy) and entry is not None:
            QGuiApplication.clipboard().setText(entry.copy_text)
            return
        toggles = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if isinstance(entry, ReasoningEntry) and event.key() in toggles:
            self.transcript().toggle_collapsed(index.row())
            return
        super().keyPressEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.model() is not None and self.model().rowCount() == 0:
            self._paint_welcome()

    def _paint_welcome(self) -> None:
        colours = theme.current()
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        area = QRectF(self.viewport().rect())
        centre_y = area.height() * 0.42
        theme.app_icon().paint(painter, int(area.width() / 2 - 28), int(centre_y - 96), 56, 56)
        title_font = self.font()
        title_font.setPointSizeF(title_font.pointSizeF() * 1.6)
        title_font.setBold(True)
        painter.setFont(title_font)
        painter.setPen(colours.color("text"))
        painter.drawText(
            QRectF(0, centre_y - 30, area.width(), 40), Qt.AlignmentFlag.AlignCenter, WELCOME_TITLE
        )
        painter.setFont(self.font())
        painter.setPen(colours.color("muted"))
        painter.drawText(
            QRectF(0, centre_y + 14, area.width(), 60), Qt.AlignmentFlag.AlignHCenter, WELCOME_TEXT
        )
        painter.end()
