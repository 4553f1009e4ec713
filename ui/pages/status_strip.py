"""A connector's status strip: one row per item it reports (`Connector.status_items()`).

Each row shows the item, its value and how Hearth reads it here ("via wpctl"); an item that
cannot work on this machine is greyed out with the reason beside it. Where the strip is too
narrow for the reason to read as a column, it goes under the value instead. Read on the pool.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from hearth import Connector, StatusItem, shown
from hearth.ui.context import UiContext
from hearth.ui.errors import status_unavailable
from hearth.ui.ops import run_op
from hearth.ui.pages.chrome import explanation

DETAIL_MIN_CHARS = 24  # a reason column narrower than this many letters is stacked instead


class StatusStrip(QWidget):
    """A grid of label, value and detail, refreshed with `refresh()`; `stacked` when the detail
    sits under the value for want of width."""

    items_did_show = Signal(int)  # how many items are shown

    def __init__(self, context: UiContext, connector: Connector, parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        self.connector = connector
        self.rows: list[tuple[QLabel, QLabel, QLabel]] = []
        self.problem = explanation("")
        self.problem.hide()
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 4, 0, 4)
        self._grid.setHorizontalSpacing(14)
        self._grid.setVerticalSpacing(6)
        self._grid.setColumnStretch(2, 1)
        self._asked = 0
        self.stacked = False

    def refresh(self) -> None:
        self._asked += 1
        asked = self._asked
        run_op(
            self.context.pool,
            self.connector.status_items,
            receiver=self,
            success=lambda items: self._show(asked, items),
            failure=lambda error: self._failed(asked, error),
        )

    def _show(self, asked: int, items: Sequence[StatusItem]) -> None:
        if asked != self._asked:  # an older read landed after a newer one
            return
        self._clear()
        for item in items:
            # What a connector reports holds the world's words (a network's name): text only.
            label, value = _plain(item.label), _plain(item.value)
            detail = explanation(shown(item.detail))
            detail.setTextFormat(Qt.TextFormat.PlainText)
            # Greyed, not red: a laptop without a backlight is not something to fix.
            label.setEnabled(item.available)
            value.setEnabled(item.available)
            self.rows.append((label, value, detail))
        self._place()
        self.items_did_show.emit(len(self.rows))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._should_stack() != self.stacked:
            self._place()

    def _should_stack(self) -> bool:
        """Whether the details, as a third column, would be narrower than they can be read."""
        if not self.rows:
            return False
        spacing = self._grid.horizontalSpacing()
        label_width = max(label.sizeHint().width() for label, _value, _detail in self.rows)
        value_width = max(value.sizeHint().width() for _label, value, _detail in self.rows)
        room = self.contentsRect().width() - label_width - value_width - 2 * spacing
        widest = max(detail.sizeHint().width() for _label, _value, detail in self.rows)
        return room < min(widest, self.fontMetrics().averageCharWidth() * DETAIL_MIN_CHARS)

    def _place(self) -> None:
        """Lay the rows out: detail beside the value, or under it when stacked."""
        self.stacked = self._should_stack()
        top = Qt.AlignmentFlag.AlignTop
        for index, (label, value, detail) in enumerate(self.rows):
            for widget in (label, value, detail):
                self._grid.removeWidget(widget)
            row = 2 * index if self.stacked else index
            self._grid.addWidget(label, row, 0, top)
            if self.stacked:
                self._grid.addWidget(value, row, 1, 1, 2, top)
                self._grid.addWidget(detail, row + 1, 1, 1, 2, top)
            else:
                self._grid.addWidget(value, row, 1, top)
                self._grid.addWidget(detail, row, 2, top)

    def _failed(self, asked: int, error: Exception) -> None:
        if asked != self._asked:
            return
        self._clear()
        self.problem.setText(status_unavailable(error))
        self._grid.addWidget(self.problem, 0, 0, 1, 3)
        self.problem.show()
        self.items_did_show.emit(0)

    def _clear(self) -> None:
        self.problem.hide()
        self._grid.removeWidget(self.problem)
        for widgets in self.rows:
            for widget in widgets:
                self._grid.removeWidget(widget)
                widget.deleteLater()
        self.rows = []


def reports_status(connector: Connector) -> bool:
    """Whether the connector reports items for a strip (it overrides `status_items`)."""
    return type(connector).status_items is not Connector.status_items


def _plain(text: str) -> QLabel:
    label = QLabel(shown(text))
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
