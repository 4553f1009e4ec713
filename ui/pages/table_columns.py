"""How a table's columns share its width, and what a cell cut short shows on hover.

Each column fits its contents, up to a cap; the stretching column takes what is left. When the
table is too narrow for that (a narrow window), the widest columns are cut to one width, never
below their heading or a readable width, and the narrow ones stay whole: the text they cut ends
in "…" and its tooltip shows it whole. Refitted whenever the table's width changes.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont, QFontMetrics, QHelpEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolTip,
)

MAX_COLUMN_WIDTH = 260
READABLE_CHARS = 12  # no text column gets narrower than this many average letters
HEADING_PADDING = 10 + 13 + 4  # chrome's header padding, left and right, and a little air


def fit_columns(view: QTableView, stretch_column: int) -> None:
    """Size every column but the stretching one to its contents, within the table's width."""
    model = view.model()
    if model is None:
        return
    header = view.horizontalHeader()
    readable = view.fontMetrics().averageCharWidth() * READABLE_CHARS
    wanted, floors = {}, {}
    for column in range(model.columnCount()):
        if not view.isColumnHidden(column):
            content = _content_width(view, column)
            capped = content if column == stretch_column else min(content, MAX_COLUMN_WIDTH)
            wanted[column] = capped
            # Its heading whole, and a readable stretch of its text.
            floors[column] = min(capped, max(readable, _heading_width(header, column)))
    widths = _shared(wanted, floors, view.viewport().width())
    for column, width in widths.items():
        if column != stretch_column:  # that one takes what is left
            view.setColumnWidth(column, width)


def _shared(wanted: dict[int, int], floors: dict[int, int], room: int) -> dict[int, int]:
    """Cut the widest columns to one width so all fit `room`: narrow columns keep their whole
    text, wide ones (the stretching one too) share what is left, none goes below its floor
    unless the floors themselves do not fit."""

    needed = sum(floors.values())
    if needed > room:  # not even the floors fit: all give way alike, rather than scroll
        floors = {c: floor * room // needed for c, floor in floors.items()}

    def at(level: int) -> dict[int, int]:
        return {c: min(width, max(level, floors[c])) for c, width in wanted.items()}

    low, high = 0, max(wanted.values(), default=0)
    while low < high:  # the widest level at which everything still fits
        middle = (low + high + 1) // 2
        if sum(at(middle).values()) <= room:
            low = middle
        else:
            high = middle - 1
    return at(low)


def _content_width(view: QTableView, column: int) -> int:
    header = view.horizontalHeader()
    return max(view.sizeHintForColumn(column), header.sectionSizeHint(column))


def _heading_width(header: QHeaderView, column: int) -> int:
    """What the heading's words need (bold, padded as chrome's table style pads them); the sort
    arrow's room is left out: only one column shows it."""
    font = QFont(header.font())
    font.setWeight(QFont.Weight.DemiBold)
    text = str(header.model().headerData(column, Qt.Orientation.Horizontal) or "")
    return QFontMetrics(font).horizontalAdvance(text) + HEADING_PADDING


class ColumnFitter(QObject):
    """Fits a table's columns again whenever its viewport changes width."""

    def __init__(self, view: QTableView, stretch_column: int) -> None:
        super().__init__(view)
        self._view = view
        self._stretch_column = stretch_column
        view.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            fit_columns(self._view, self._stretch_column)
        return False


class RowDelegate(QStyledItemDelegate):
    """Rows are selected whole, so the current cell's focus frame is only noise; a cell whose
    text is cut short shows it whole in its tooltip."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        option.state &= ~QStyle.StateFlag.State_HasFocus

    def helpEvent(
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> bool:
        text = index.data(Qt.ItemDataRole.DisplayRole)
        cut = self.sizeHint(option, index).width() > option.rect.width()
        if event.type() != QEvent.Type.ToolTip or not text or not cut:
            return super().helpEvent(event, view, option, index)
        more = index.data(Qt.ItemDataRole.ToolTipRole)
        QToolTip.showText(event.globalPos(), f"{text}\n\n{more}" if more else str(text), view)
        return True
