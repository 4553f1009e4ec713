"""The Folders page: grant and revoke folders, and follow the file index as it works."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableView,
    QWidget,
)

from hearth import FolderAccess, IndexStatus, counted
from hearth.ui.context import UiContext
from hearth.ui.pages.chrome import (
    Tone,
    configure_table,
    explanation,
    fit_columns,
    page_layout,
    set_tone,
)
from hearth.ui.pages.folder_model import FOLDER, FolderTableModel, summary

WARNINGS_SHOWN = 3
NO_CONNECTOR = "No files connector is installed, so there are no folders to grant."


class _StatusBridge(QObject):
    """Carries the indexer thread's status reports to the main thread."""

    status_did_arrive = Signal(object)

    def __init__(self, folders: FolderAccess, parent: QObject) -> None:
        super().__init__(parent)
        unsubscribe = folders.subscribe(self.status_did_arrive.emit)
        # Plain references only: by then this object is being destroyed.
        self.destroyed.connect(lambda *_: unsubscribe())


class FoldersPage(QWidget):
    """Hearth sees only the folders granted here; the index lets the assistant search them."""

    title = "Folders"
    folders_did_load = Signal()
    status_did_change = Signal(object)  # the IndexStatus now shown

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.folders = context.assistant.folders()
        self.model = FolderTableModel(self.palette(), self)
        self.table = QTableView()
        self.table.setModel(self.model)
        configure_table(self.table, stretch_column=FOLDER)
        self.table.setSortingEnabled(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # keep both ends of a path
        self.grant_button = QPushButton("Grant a folder…")
        self.revoke_button = QPushButton("Revoke")
        self.state = QLabel()
        self.state.setWordWrap(True)
        self.bar = QProgressBar()
        self.skipped = explanation("")
        self.warnings = QLabel()
        self.warnings.setWordWrap(True)
        self.message = QLabel()
        self.folder_dialog: QFileDialog | None = None
        self._lay_out()
        self._connect()
        if self.folders is None:
            self._show_missing()
            return
        _StatusBridge(self.folders, self).status_did_arrive.connect(self.show_status)
        self.show_status(self.folders.status())
        self.refresh()

    def _lay_out(self) -> None:
        layout = page_layout(
            self,
            self.title,
            "The assistant can search and read only the folders you grant here, and everything "
            "inside them. They are indexed on this computer; nothing is uploaded.",
        )
        layout.addWidget(self.table, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.message, 1)
        buttons.addWidget(self.revoke_button)
        buttons.addWidget(self.grant_button)
        layout.addLayout(buttons)
        layout.addWidget(self.state)
        layout.addWidget(self.bar)
        layout.addWidget(self.skipped)
        layout.addWidget(self.warnings)

    def _connect(self) -> None:
        self.grant_button.clicked.connect(self.choose_folder)
        self.revoke_button.clicked.connect(self.revoke_selected)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)

    def _show_missing(self) -> None:
        self.state.setText(NO_CONNECTOR)
        set_tone(self.state, "warn")
        self.grant_button.setEnabled(False)
        self._update_buttons()
        for hidden in (self.bar, self.skipped, self.warnings):
            hidden.setVisible(False)

    def refresh(self, select: Path | None = None) -> None:
        """Re-read the granted folders (they live in the settings file) on the pool."""
        folders = self.folders
        if folders is None:
            return
        self.context.run(
            folders.roots,
            receiver=self,
            success=lambda roots: self._show_folders(roots, select),
            doing="list the granted folders",
        )

    def _show_folders(self, roots: list[Path], select: Path | None) -> None:
        self.model.set_folders(roots)
        row = self.model.row_of(select) if select is not None else None
        if row is not None:
            self.table.selectRow(row)
        self._update_buttons()
        if self.folders is not None:
            self.show_status(self.folders.status())
        self.folders_did_load.emit()

    def show_status(self, status: IndexStatus) -> None:
        self.model.set_status(status)
        fit_columns(self.table, FOLDER)  # the Index words change length with the state
        self.state.setText(summary(status, self.model.rowCount()))
        scanning = status.state == "scanning"
        self.bar.setVisible(scanning)
        if scanning:
            self.bar.setRange(0, max(status.total, 0))  # 0..0: busy while files are counted
            self.bar.setValue(status.done)
        self.skipped.setVisible(status.skipped > 0)
        self.skipped.setText(
            f"{counted(status.skipped, 'file')} {'was' if status.skipped == 1 else 'were'} "
            "skipped: too large, not text, unreadable, or with more than one name (hard links, "
            "which may lead outside your folders)."
        )
        self._show_warnings(status.warnings)
        self.status_did_change.emit(status)

    def _show_warnings(self, warnings: tuple[str, ...]) -> None:
        recent = warnings[-WARNINGS_SHOWN:]
        self.warnings.setVisible(bool(recent))
        self.warnings.setText("\n".join(f"⚠ {text}" for text in recent))
        set_tone(self.warnings, "warn")

    def selected_folder(self) -> Path | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.rows[rows[0].row()] if rows else None

    def _update_buttons(self, *_: object) -> None:
        self.revoke_button.setEnabled(self.selected_folder() is not None)

    def choose_folder(self) -> None:
        dialog = QFileDialog(self, "Grant a folder", str(Path.home()))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(lambda name: self.grant(Path(name)))
        self.folder_dialog = dialog
        dialog.open()

    def grant(self, folder: Path) -> None:
        folders = self.folders
        if folders is None:
            return
        self.context.run(
            lambda: folders.grant(folder),
            receiver=self,
            success=self._granted,
            doing=f"grant {folder}",
        )

    def _granted(self, root: Path) -> None:
        self._say(f"Granted {root}.", "good")
        self.refresh(select=root)

    def revoke_selected(self) -> None:
        folder = self.selected_folder()
        folders = self.folders
        if folder is None or folders is None:
            return
        self.context.run(
            lambda: folders.revoke(folder),
            receiver=self,
            success=lambda _: self._revoked(folder),
            doing=f"revoke {folder}",
        )

    def _revoked(self, folder: Path) -> None:
        self._say(f"Revoked {folder}; its files leave the index.")
        self.refresh()

    def _say(self, text: str, tone: Tone | None = None) -> None:
        self.message.setText(text)
        set_tone(self.message, tone)
