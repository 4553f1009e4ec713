"""Plugins as a table: name, where it comes from, whether it loaded, and how many tools."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QPalette

from hearth import PluginInfo
from hearth.ui.pages.chrome import Tone, tone_color
from hearth.ui.pages.table_model import ColumnsTableModel, Index

COLUMNS = ("Plugin", "From", "State", "Tools")
NAME, SOURCE, STATE, TOOLS = range(len(COLUMNS))

SOURCE_WORDS = {
    "built-in": "Hearth",
    "package": "Installed package",
    "user": "Your plugins folder",
    "given": "This session",
}
STATE_WORDS = {"loaded": "Loaded", "failed": "Failed", "disabled": "Off"}
_STATE_TONES: dict[str, Tone] = {"loaded": "good", "failed": "bad"}


class PluginTableModel(ColumnsTableModel):
    """Rows are `PluginInfo`s, as `Assistant.plugin_infos()` gives them."""

    columns = COLUMNS

    def __init__(self, palette: QPalette, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._palette = palette
        self.rows: list[PluginInfo] = []

    def set_plugins(self, plugins: list[PluginInfo]) -> None:
        self.beginResetModel()
        self.rows = list(plugins)
        self.endResetModel()

    def plugin_at(self, row: int) -> PluginInfo:
        return self.rows[row]

    def row_of(self, name: str) -> int | None:
        return next((row for row, info in enumerate(self.rows) if info.name == name), None)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        info = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return _cell(info, column)
        if role == Qt.ItemDataRole.ForegroundRole and column == STATE:
            tone = _STATE_TONES.get(info.state)
            return tone_color(self._palette, tone) if tone else None
        if role == Qt.ItemDataRole.ToolTipRole and info.error:
            return info.error
        return None


def _cell(info: PluginInfo, column: int) -> str:
    if column == NAME:
        return info.name
    if column == SOURCE:
        return SOURCE_WORDS.get(info.source, info.source)
    if column == STATE:
        return STATE_WORDS.get(info.state, info.state)
    return str(len(info.tools)) if info.state == "loaded" else ""
