"""What every flat table on the pages shares: fixed column titles over a list of rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QPalette

Index = QModelIndex | QPersistentModelIndex


class ColumnsTableModel(QAbstractTableModel):
    """Row and column counts and header titles; subclasses set `columns` and `rows`, and give
    `data()`."""

    columns: tuple[str, ...] = ()
    rows: Sequence[Any] = ()
    _palette: QPalette

    def set_palette(self, palette: QPalette) -> None:
        """The theme changed: cells re-read their status colours from the new palette."""
        self._palette = palette
        if self.rows and self.columns:
            last = self.index(len(self.rows) - 1, len(self.columns) - 1)
            self.dataChanged.emit(self.index(0, 0), last, [Qt.ItemDataRole.ForegroundRole])

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section]
        return None
