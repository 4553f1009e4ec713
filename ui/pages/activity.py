"""The Activity page: the audit log of every proposed tool call, filterable and exportable."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QWidget,
)

from hearth import Assistant, AuditEntry, ExportFormat, counted, shown
from hearth.ui.context import UiContext
from hearth.ui.pages.audit_model import (
    OUTCOME_WORDS,
    RESULT,
    WHEN,
    AuditFilter,
    AuditTableModel,
)
from hearth.ui.pages.chrome import configure_table, page_layout, set_tone

ENTRY_LIMIT = 10_000
FORMAT_FILTERS = {"json": "JSON (*.json)", "csv": "CSV spreadsheet (*.csv)"}


def write_export(assistant: Assistant, path: Path, entries: list[AuditEntry]) -> int:
    """Write `entries` to `path`, as CSV for a .csv name and JSON otherwise."""
    fmt: ExportFormat = "csv" if path.suffix.lower() == ".csv" else "json"
    with path.open("w", encoding="utf-8", newline="") as handle:
        return assistant.export_activity(handle, fmt, entries)


class ActivityPage(QWidget):
    """Every decision and outcome the executor recorded, newest first."""

    title = "Activity"
    entries_did_load = Signal(int)  # how many entries were read
    export_did_finish = Signal(str, int)  # the file written, and how many entries it holds

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.model = AuditTableModel(self.palette(), self)
        self.proxy = AuditFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        configure_table(self.table, stretch_column=RESULT)
        self.table.sortByColumn(WHEN, Qt.SortOrder.DescendingOrder)
        self.search = QLineEdit(placeholderText="Search tools, arguments and results")
        self.search.setClearButtonEnabled(True)
        self.tool_filter = QComboBox()
        self.outcome_filter = _outcome_combo()
        self.refresh_button = QPushButton("Refresh")
        self.export_button = QPushButton("Export…")
        self.status = QLabel()
        self.export_dialog: QFileDialog | None = None
        self._lay_out()
        self._connect()

    def _lay_out(self) -> None:
        layout = page_layout(
            self,
            self.title,
            "Everything the assistant proposed, what was decided and what happened. "
            "The log cannot be edited, only read and exported.",
        )
        filters = QHBoxLayout()
        filters.addWidget(self.search, 2)
        filters.addWidget(self.tool_filter, 1)
        filters.addWidget(self.outcome_filter, 1)
        filters.addWidget(self.refresh_button)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        footer = QHBoxLayout()
        footer.addWidget(self.status, 1)
        footer.addWidget(self.export_button)
        layout.addLayout(footer)

    def _connect(self) -> None:
        self.search.textChanged.connect(self.apply_filters)
        self.tool_filter.currentIndexChanged.connect(self.apply_filters)
        self.outcome_filter.currentIndexChanged.connect(self.apply_filters)
        self.refresh_button.clicked.connect(self.refresh)
        self.export_button.clicked.connect(self.choose_export_file)

    def refresh(self) -> None:
        """Re-read the log on the pool (it grows while the assistant works)."""
        assistant = self.context.assistant
        self.context.run(
            lambda: assistant.activity(limit=ENTRY_LIMIT),
            receiver=self,
            success=self._show_entries,
            doing="read the activity log",
        )

    def _show_entries(self, entries: list[AuditEntry]) -> None:
        self.model.set_entries(entries)
        self._offer_tools(sorted({entry.tool for entry in entries}))
        self.apply_filters()
        self.entries_did_load.emit(len(entries))

    def _offer_tools(self, tools: list[str]) -> None:
        chosen = self.tool_filter.currentData()
        self.tool_filter.blockSignals(True)
        self.tool_filter.clear()
        self.tool_filter.addItem("All tools", None)
        for tool in tools:
            self.tool_filter.addItem(shown(tool), tool)
        self.tool_filter.setCurrentIndex(max(0, self.tool_filter.findData(chosen)))
        self.tool_filter.blockSignals(False)

    def apply_filters(self) -> None:
        self.proxy.set_criteria(
            tool=self.tool_filter.currentData(),
            outcome=self.outcome_filter.currentData(),
            words=self.search.text(),
        )
        visible, total = self.proxy.rowCount(), self.model.rowCount()
        capped = " (the most recent)" if total >= ENTRY_LIMIT else ""
        self.status.setText(f"Showing {visible} of {counted(total, 'entry', 'entries')}{capped}")
        set_tone(self.status, None)
        self.export_button.setEnabled(visible > 0)

    def choose_export_file(self) -> None:
        dialog = QFileDialog(self, "Export activity", str(Path.home() / "hearth-activity.json"))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilters(list(FORMAT_FILTERS.values()))
        dialog.setDefaultSuffix("json")
        dialog.filterSelected.connect(lambda chosen: dialog.setDefaultSuffix(_suffix(chosen)))
        dialog.fileSelected.connect(lambda name: self.export_to(Path(name)))
        self.export_dialog = dialog
        dialog.open()

    def export_to(self, path: Path) -> None:
        """Write the entries shown now (filters applied) to `path`, on the pool."""
        assistant, entries = self.context.assistant, self.proxy.visible_entries()
        self.context.run(
            lambda: write_export(assistant, path, entries),
            receiver=self,
            success=lambda count: self._exported(path, count),
            doing=f"export the activity log to {path.name}",
        )

    def _exported(self, path: Path, count: int) -> None:
        self.status.setText(f"Exported {counted(count, 'entry', 'entries')} to {path}")
        set_tone(self.status, "good")
        self.export_did_finish.emit(str(path), count)

    def showEvent(self, event: QShowEvent) -> None:
        # Read when the page is opened, not when the window is built: most visits are rare.
        if not event.spontaneous():
            self.refresh()
        super().showEvent(event)


def _outcome_combo() -> QComboBox:
    combo = QComboBox()
    combo.addItem("All outcomes", None)
    for outcome, words in OUTCOME_WORDS.items():
        combo.addItem(words, outcome)
    return combo


def _suffix(name_filter: str) -> str:
    return next((fmt for fmt, text in FORMAT_FILTERS.items() if text == name_filter), "json")
