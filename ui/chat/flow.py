"""A row of widgets that wraps onto more lines when the width runs out.

Qt's flow layout example, plus one thing a card's rows need: what follows `addStretch` sits at
the right end of its line (Deny stays at the right when the buttons wrap). Every item keeps its
size hint, so a button's label is never cut.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget

DEFAULT_SPACING = 8
_Line = list[tuple[QLayoutItem, QSize, bool]]  # item, its size, whether it packs to the right


class FlowLayout(QLayout):
    """Left to right, wrapping; items after the stretch are packed against the right edge."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._right_from: int | None = None
        self.setSpacing(DEFAULT_SPACING)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def addStretch(self, _stretch: int = 1) -> None:
        """Items added after this go to the right end of their line."""
        self._right_from = len(self._items)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        if not 0 <= index < len(self._items):
            return None
        if self._right_from is not None and index < self._right_from:
            self._right_from -= 1
        return self._items.pop(index)

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        margins = self.contentsMargins()
        lines = self._lines(width - margins.left() - margins.right())
        return _height(lines, self.spacing()) + margins.top() + margins.bottom()

    def sizeHint(self) -> QSize:
        """Everything on one line."""
        shown = self._shown()
        width = sum(size.width() for _item, size, _right in shown)
        width += self.spacing() * max(0, len(shown) - 1)
        height = max((size.height() for _item, size, _right in shown), default=0)
        return _grown(QSize(width, height), self.contentsMargins())

    def minimumSize(self) -> QSize:
        """One item a line: the widest item decides."""
        shown = self._shown()
        width = max((size.width() for _item, size, _right in shown), default=0)
        height = max((size.height() for _item, size, _right in shown), default=0)
        return _grown(QSize(width, height), self.contentsMargins())

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        area = rect.marginsRemoved(self.contentsMargins())
        top = area.top()
        for line in self._lines(area.width()):
            height = max(size.height() for _item, size, _right in line)
            left, right = area.left(), area.right() + 1
            for item, size, _right in (entry for entry in line if not entry[2]):
                item.setGeometry(QRect(QPoint(left, _centred(top, height, size)), size))
                left += size.width() + self.spacing()
            for item, size, _right in reversed([entry for entry in line if entry[2]]):
                right -= size.width()
                item.setGeometry(QRect(QPoint(right, _centred(top, height, size)), size))
                right -= self.spacing()
            top += height + self.spacing()

    def _shown(self) -> _Line:
        right_from = len(self._items) if self._right_from is None else self._right_from
        return [
            (item, item.sizeHint(), index >= right_from)
            for index, item in enumerate(self._items)
            if not item.isEmpty()
        ]

    def _lines(self, width: int) -> list[_Line]:
        lines: list[_Line] = []
        used = 0
        for entry in self._shown():
            needed = self.spacing() + entry[1].width()
            if lines and used + needed <= width:
                lines[-1].append(entry)
                used += needed
            else:
                lines.append([entry])
                used = entry[1].width()
        return lines


def _height(lines: list[_Line], spacing: int) -> int:
    heights = [max(size.height() for _item, size, _right in line) for line in lines]
    return sum(heights) + spacing * max(0, len(heights) - 1)


def _centred(top: int, line_height: int, size: QSize) -> int:
    return top + (line_height - size.height()) // 2


def _grown(size: QSize, margins: QMargins) -> QSize:
    return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())
