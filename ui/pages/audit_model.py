"""The audit log as a table, and the filter (tool, outcome, free text) the Activity page applies.

Tools, arguments and results quote outside text: what a cell or a tooltip shows is escaped as
`hearth.shown` does it; sorting and searching use the text itself.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import (
    QObject,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QPalette

from hearth import AuditEntry, shown
from hearth.ui.pages.chrome import Tone, tone_color
from hearth.ui.pages.table_model import ColumnsTableModel, Index

COLUMNS = ("When", "Tool", "Outcome", "Decided by", "Arguments", "Result")
WHEN, TOOL, OUTCOME, DECIDED_BY, ARGUMENTS, RESULT = range(len(COLUMNS))
SORT_ROLE = Qt.ItemDataRole.UserRole + 1

OUTCOME_WORDS = {
    "proposed": "Allowed",
    "denied": "Denied",
    "executed": "Done",
    "failed": "Failed",
    "partial": "Partly done",
    "unknown": "Interrupted",
}
_OUTCOME_TONES: dict[str, Tone] = {
    "denied": "bad",
    "failed": "bad",
    "partial": "warn",
    "unknown": "warn",
}
_CELL_CHARS = 200


class AuditTableModel(ColumnsTableModel):
    """Rows are audit entries, newest first as loaded; each entry's `Ruling` says who decided."""

    columns = COLUMNS

    def __init__(self, palette: QPalette, parent: QObject | None = None):
        super().__init__(parent)
        self._palette = palette
        self.rows: list[AuditEntry] = []

    def set_entries(self, entries: list[AuditEntry]) -> None:
        self.beginResetModel()
        self.rows = list(entries)
        self.endResetModel()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        entry, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return _one_line(self.text(entry, column))
        if role == SORT_ROLE:
            return entry.id if column == WHEN else self.text(entry, column).casefold()
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(entry)
        if role == Qt.ItemDataRole.ForegroundRole and column == OUTCOME:
            tone = _OUTCOME_TONES.get(entry.outcome)
            return tone_color(self._palette, tone) if tone else None
        return None

    def text(self, entry: AuditEntry, column: int) -> str:
        if column == WHEN:
            return entry.at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
        if column == TOOL:
            return tool_words(entry)
        if column == OUTCOME:
            return OUTCOME_WORDS.get(entry.outcome, entry.outcome)
        if column == DECIDED_BY:
            return _capitalized(entry.ruling.by_whom())
        if column == ARGUMENTS:
            flag = "⚠ " if entry.taint else ""
            return flag + ", ".join(f"{k}={_value(v)}" for k, v in entry.arguments.items())
        return entry.result_summary

    def _tooltip(self, entry: AuditEntry) -> str:
        ruling = entry.ruling
        lines = [
            f"{tool_words(entry)} — {OUTCOME_WORDS.get(entry.outcome, entry.outcome)}",
            f"Decided by: {ruling.by_whom()}",
        ]
        if ruling.rule_text and not ruling.by_rule:
            lines.append(f"Rule: {ruling.rule_text}")  # the one the user's answer created
        if ruling.wording:
            lines.append(f"Why: {ruling.wording}")
        lines.append(f"Call: {entry.call_id}")
        lines += [f"⚠ {t.argument} came from {t.source}" for t in entry.taint]
        if entry.duration_ms is not None:
            lines.append(f"Took {entry.duration_ms} ms")
        summary = entry.result_summary[:_CELL_CHARS]
        return "\n".join(shown(line) for line in ([*lines, summary] if summary else lines))


class AuditFilter(QSortFilterProxyModel):
    """Keeps rows matching a tool, an outcome and a piece of text (any of them may be unset)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tool: str | None = None
        self.outcome: str | None = None
        self.words = ""
        self.setSortRole(SORT_ROLE)

    def set_criteria(self, *, tool: str | None, outcome: str | None, words: str) -> None:
        self.beginFilterChange()
        self.tool, self.outcome, self.words = tool, outcome, words.strip().casefold()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def visible_entries(self) -> list[AuditEntry]:
        """The entries shown, in the order shown."""
        source = self.sourceModel()
        assert isinstance(source, AuditTableModel)
        rows = (self.mapToSource(self.index(row, 0)).row() for row in range(self.rowCount()))
        return [source.rows[row] for row in rows]

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        source = self.sourceModel()
        assert isinstance(source, AuditTableModel)
        entry = source.rows[source_row]
        if self.tool is not None and entry.tool != self.tool:
            return False
        if self.outcome is not None and entry.outcome != self.outcome:
            return False
        return not self.words or self.words in _haystack(source, entry)


def tool_words(entry: AuditEntry) -> str:
    """The Tool column: the tool, or for an undo what it reverted ("Undid files.write_text");
    its Arguments are then the undone call's, its Result what the undo put back."""
    if not entry.is_undo:
        return entry.tool
    return f"Undid {entry.tool}" if entry.outcome == "executed" else f"Undo of {entry.tool}"


def _haystack(model: AuditTableModel, entry: AuditEntry) -> str:
    texts = [model.text(entry, column) for column in range(len(COLUMNS))]
    texts.append(json.dumps(entry.arguments, ensure_ascii=False, default=str))
    return "\n".join(texts).casefold()


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def _value(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _one_line(text: str) -> str:
    # Line feeds and tabs fold into spaces; a separator (U+2028) or a CR shows as an escape.
    flat = " ".join(shown(text, lines=True).split())
    return flat if len(flat) <= _CELL_CHARS else flat[: _CELL_CHARS - 1] + "…"
