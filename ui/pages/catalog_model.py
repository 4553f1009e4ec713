"""The Models table: each model's size, licence and state (installed, in use, downloading)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QFont, QPalette

from hearth import ModelRow
from hearth.ui.pages.chrome import Tone, muted_color, tone_color
from hearth.ui.pages.table_model import ColumnsTableModel, Index
from hearth.ui.pages.units import file_size, percent

COLUMNS = ("Model", "Quantization", "Size", "Licence", "Status")
LABEL, QUANT, SIZE, LICENSE, STATUS = range(len(COLUMNS))
_SOURCE_WORDS = {"bundled": "Bundled", "user": "Installed", "package": "Installed (package)"}


class ModelTableModel(ColumnsTableModel):
    """Rows from the inventory, plus live state: which file is in use, what is downloading."""

    columns = COLUMNS

    def __init__(self, palette: QPalette, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._palette = palette
        self.rows: list[ModelRow] = []
        self.in_use: Path | None = None
        self.downloading: dict[str, float] = {}  # row key → fraction done

    def set_rows(self, rows: list[ModelRow]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def row_of(self, key: str) -> int | None:
        return next((i for i, row in enumerate(self.rows) if row.key == key), None)

    def set_in_use(self, path: Path | None) -> None:
        self.in_use = path.resolve() if path else None
        self._status_changed(range(len(self.rows)))

    def set_download(self, key: str, fraction: float | None) -> None:
        """Show a download's progress in its row; None when it has ended."""
        if fraction is None:
            self.downloading.pop(key, None)
        else:
            self.downloading[key] = fraction
        row = self.row_of(key)
        if row is not None:
            self._status_changed([row])

    def is_in_use(self, row: ModelRow) -> bool:
        return row.path is not None and self.in_use == row.path.resolve()

    def status(self, row: ModelRow) -> str:
        if row.key in self.downloading:
            return f"Downloading {percent(self.downloading[row.key])}"
        if self.is_in_use(row):
            return "In use"
        if row.installed is not None:
            return _SOURCE_WORDS[row.installed.source]
        if row.partial_bytes:
            return f"Paused at {percent(row.partial_bytes / row.size)}"
        if row.entry is not None and row.entry.package is not None:
            return f"Needs the {row.entry.package} package"
        return "Not installed"

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row)
        if role == Qt.ItemDataRole.ForegroundRole and column == STATUS:
            return self._status_colour(row)
        if role == Qt.ItemDataRole.FontRole and column == STATUS and self.is_in_use(row):
            font = QFont()
            font.setWeight(QFont.Weight.DemiBold)
            return font
        return None

    def _text(self, row: ModelRow, column: int) -> str:
        if column == LABEL:
            return row.label
        if column == QUANT:
            return row.quant
        if column == SIZE:
            return file_size(row.size)
        if column == LICENSE:
            return row.license
        return self.status(row)

    def _tooltip(self, row: ModelRow) -> str:
        if row.path is not None:
            return str(row.path)
        if row.entry is not None and row.entry.repo is not None:
            return f"{row.entry.repo} (about {file_size(row.size)})"
        return row.label

    def _status_colour(self, row: ModelRow) -> Any:
        tone: Tone | None = None
        if self.is_in_use(row) or row.installed is not None:
            tone = "good"
        elif row.key in self.downloading:
            tone = "info"
        elif row.partial_bytes:
            tone = "warn"
        return tone_color(self._palette, tone) if tone else muted_color(self._palette)

    def _status_changed(self, rows: range | list[int]) -> None:
        for row in rows:
            cell = self.index(row, STATUS)
            self.dataChanged.emit(cell, cell)
