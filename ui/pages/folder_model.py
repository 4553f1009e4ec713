"""Granted folders as a table, and the index status in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QPalette

from hearth import IndexStatus, counted
from hearth.ui.pages.chrome import muted_color, tone_color
from hearth.ui.pages.table_model import ColumnsTableModel, Index

COLUMNS = ("Folder", "Index")
FOLDER, INDEX = range(len(COLUMNS))


def resting_words(state: str) -> str:
    """How a folder stands when it is not the one being scanned."""
    return {
        "watching": "Up to date · watched for changes",
        "polling": "Up to date · checked every few seconds",
        "scanning": "Waiting its turn",
    }.get(state, "Not being indexed")


def summary(status: IndexStatus, folder_count: int) -> str:
    """One sentence for the status strip."""
    if status.state == "scanning" and status.root is not None:
        if not status.total:
            return f"Looking for files in {status.root}…"
        return f"Indexing {status.root.name}: {status.done:,} of {counted(status.total, 'file')}"
    if not folder_count:
        return "No folders granted yet. Grant one to let the assistant search and read it."
    if status.state == "watching":
        return "The index is up to date; changes are picked up as they happen."
    if status.state == "polling":
        return (
            "The index is up to date; some folders cannot be watched live, so they are "
            "checked every few seconds."
        )
    return "Indexing is not running: it starts with the assistant."


class FolderTableModel(ColumnsTableModel):
    """Rows are granted folders; the Index column follows the latest status."""

    columns = COLUMNS

    def __init__(self, palette: QPalette, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._palette = palette
        self.rows: list[Path] = []
        self.status: IndexStatus | None = None

    def set_folders(self, folders: list[Path]) -> None:
        self.beginResetModel()
        self.rows = list(folders)
        self.endResetModel()

    def set_status(self, status: IndexStatus) -> None:
        self.status = status
        if self.rows:
            first, last = self.index(0, INDEX), self.index(len(self.rows) - 1, INDEX)
            self.dataChanged.emit(first, last)

    def row_of(self, folder: Path) -> int | None:
        return self.rows.index(folder) if folder in self.rows else None

    def index_words(self, folder: Path) -> str:
        status = self.status
        if status is None:
            return ""
        if status.state == "scanning" and status.root == folder:
            if not status.total:
                return "Looking for files…"
            return f"Indexing {status.done:,} of {status.total:,}"
        return resting_words(status.state)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        folder = self.rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return str(folder) if index.column() == FOLDER else self.index_words(folder)
        if role == Qt.ItemDataRole.ToolTipRole:
            return str(folder)
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == INDEX:
            return self._index_colour(folder)
        return None

    def _index_colour(self, folder: Path) -> Any:
        status = self.status
        if status is None or status.state == "idle":
            return muted_color(self._palette)
        if status.state == "scanning" and status.root == folder:
            return tone_color(self._palette, "info")
        return tone_color(self._palette, "good") if status.state != "scanning" else None
