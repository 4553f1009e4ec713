"""The transcript's item delegate: text rows are drawn by `TextRows`, tool cards are widgets.

Cards are interactive, so each card row gets a persistent editor (`ToolCard`) that the view
opens; this delegate sizes and places them and forwards their answers.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QRectF,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import QListView, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from hearth.ui import theme
from hearth.ui.chat.card import ToolCard
from hearth.ui.chat.entries import ReasoningEntry, ToolCardEntry, TranscriptEntry
from hearth.ui.chat.rows import GAP, Column, TextRows
from hearth.ui.chat.transcript import ENTRY_ROLE, TranscriptModel

_Index = QModelIndex | QPersistentModelIndex
CARD_FALLBACK_HEIGHT = 160


class TranscriptDelegate(QStyledItemDelegate):
    """Sizes, draws and (for cards) edits each row from its `TranscriptEntry`."""

    card_answered = Signal(str, object)  # (call id, Answer)
    undo_requested = Signal(str)  # call id

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self._view = view
        self._rows = TextRows(view)
        self._cards: dict[str, ToolCard] = {}

    def card(self, call_id: str) -> ToolCard | None:
        return self._cards.get(call_id)

    def forget_layouts(self, keep: set[int]) -> None:
        self._rows.forget(keep)

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        entry: TranscriptEntry = index.data(ENTRY_ROLE)
        width = self._view.viewport().width()
        column = Column.of(width)
        if isinstance(entry, ToolCardEntry):
            return QSize(width, self._card_height(entry, column) + 2 * GAP)
        return QSize(width, self._rows.height(entry, column))

    def _card_height(self, entry: ToolCardEntry, column: Column) -> int:
        card = self._cards.get(entry.call_id)
        if card is None:
            return CARD_FALLBACK_HEIGHT
        return card.heightForWidth(column.width)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        entry: TranscriptEntry = index.data(ENTRY_ROLE)
        rect: QRect = option.rect
        column = Column.of(rect.width())
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if not isinstance(entry, ToolCardEntry):
            self._rows.paint(painter, entry, rect, column)
        if option.state & QStyle.StateFlag.State_HasFocus and self._view.hasFocus():
            _paint_focus(painter, rect, column)
        painter.restore()

    def editorEvent(
        self,
        event: QEvent,
        model: QAbstractItemModel,
        option: QStyleOptionViewItem,
        index: _Index,
    ) -> bool:
        """A click on a thinking block's header folds or unfolds it."""
        entry = index.data(ENTRY_ROLE)
        if not isinstance(entry, ReasoningEntry) or not isinstance(event, QMouseEvent):
            return super().editorEvent(event, model, option, index)
        if not entry.text.strip():
            return False  # only the offered tools' line: nothing to fold
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        if event.type() != QEvent.Type.MouseButtonRelease:
            return event.type() == QEvent.Type.MouseButtonPress
        header_bottom = option.rect.top() + GAP + self._rows.header_height()
        if event.position().y() > header_bottom or not isinstance(model, TranscriptModel):
            return False
        model.toggle_collapsed(index.row())
        return True

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:
        entry = index.data(ENTRY_ROLE)
        if not isinstance(entry, ToolCardEntry):
            return super().createEditor(parent, option, index)
        card = ToolCard(parent)
        call_id = entry.call_id
        card.answered.connect(lambda answer: self.card_answered.emit(call_id, answer))
        card.undo_requested.connect(lambda: self.undo_requested.emit(call_id))
        card.layout_did_change.connect(self._view.scheduleDelayedItemsLayout)
        card.destroyed.connect(lambda: self._cards.pop(call_id, None))
        self._cards[call_id] = card
        card.show_entry(entry)
        return card

    def setEditorData(self, editor: QWidget, index: _Index) -> None:
        entry = index.data(ENTRY_ROLE)
        if isinstance(editor, ToolCard) and isinstance(entry, ToolCardEntry):
            editor.show_entry(entry)

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:
        """Cards change nothing in the model: their answers go to the controller."""

    def updateEditorGeometry(
        self, editor: QWidget, option: QStyleOptionViewItem, index: _Index
    ) -> None:
        rect: QRect = option.rect
        column = Column.of(rect.width())
        left, top = rect.left() + column.left, rect.top() + GAP
        editor.setGeometry(left, top, column.width, rect.height() - 2 * GAP)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The default filter turns Enter, Tab and Esc in an editor into commit-and-close; a
        # card handles its own keys, and Esc belongs to the window (Stop).
        return False


def _paint_focus(painter: QPainter, rect: QRect, column: Column) -> None:
    """A quiet outline around the row the keyboard is on."""
    painter.setPen(QPen(theme.current().color("accent"), 1, Qt.PenStyle.DotLine))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    left = rect.left() + column.left - 8
    painter.drawRoundedRect(
        QRectF(left, rect.top() + 2, column.width + 16, rect.height() - 4), 8, 8
    )
