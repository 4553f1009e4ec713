"""The Models page: the catalog, downloads with progress, switching, importing and verifying."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from hearth import GGUFSummary, ModelRow
from hearth.ui.context import UiContext
from hearth.ui.errors import describe_error
from hearth.ui.ops import run_op
from hearth.ui.pages.catalog_model import LABEL, ModelTableModel
from hearth.ui.pages.chrome import Banner, Tone, configure_table, page_layout, set_tone
from hearth.ui.pages.download_job import DownloadJob
from hearth.ui.pages.download_panel import DownloadPanel
from hearth.ui.pages.model_downloads import DownloadingPage
from hearth.ui.pages.speech_section import SpeechSection
from hearth.ui.pages.threads_control import ThreadsControl
from hearth.ui.pages.units import file_size

LOADING_MODELS = "Loading models…"
TABLE_ROWS_MAX = 12
FIRST_RUN = (
    "<b>No model is installed yet.</b> Hearth needs one on this computer to answer you. "
    "Download the recommended model below — once it is here, nothing leaves your machine — "
    "or import a .gguf file you already have."
)


class ModelsPage(DownloadingPage):
    """Lists catalog models and installed files; every disk or network step runs on the pool."""

    title = "Models"
    inventory_did_load = Signal()
    model_did_change = Signal(str)  # the file now in use
    verify_did_finish = Signal(str)  # the message shown

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.models = context.assistant.models
        self.job: DownloadJob | None = None
        self.import_dialog: QFileDialog | None = None
        self._loading_model = False
        self._wanted: Path | None = None  # select this file once the list is re-read
        self._announce: tuple[str, Tone] | None = None  # said once the wanted row is listed
        self._use_wanted = False  # put the wanted file in use: no model was loaded
        self.model = ModelTableModel(self.palette(), self)
        self.table = QTableView()
        self.table.setModel(self.model)
        configure_table(self.table, stretch_column=LABEL)
        self.table.setSortingEnabled(False)  # catalog order: recommended first
        self.banner = Banner(FIRST_RUN)
        self.recommended_button = QPushButton("Download the recommended model")
        self.download_button = QPushButton("Download")
        self.use_button = QPushButton("Use this model")
        self.verify_button = QPushButton("Verify")
        self.import_button = QPushButton("Import .gguf…")
        self.panel = DownloadPanel()
        self.threads = ThreadsControl(context)
        self.speech = SpeechSection(context)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.fallback_button = QPushButton()
        self.fallback_button.hide()
        self.loading = QLabel(LOADING_MODELS)
        self.loading.setObjectName("hint")
        self._lay_out()
        self._connect()
        self.refresh()

    def _lay_out(self) -> None:
        # One scroll area for the whole page: the voice section below the table sizes to its
        # content instead of scrolling on its own, where its last lines were cut off.
        content = QWidget()
        self.page_area = QScrollArea()
        self.page_area.setWidget(content)
        self.page_area.setWidgetResizable(True)
        self.page_area.setFrameShape(QFrame.Shape.NoFrame)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.page_area)
        layout = page_layout(
            content,
            self.title,
            "The language model runs on this computer. Download one once; after that Hearth "
            "works offline.",
        )
        import_instead = QPushButton("Import a .gguf file…")
        import_instead.clicked.connect(self.choose_import_file)
        self.banner.add_action(import_instead)
        self.banner.add_action(self.recommended_button)
        self.banner.hide()
        layout.addWidget(self.banner)
        layout.addWidget(self.loading)
        layout.addWidget(self.table)
        buttons = QHBoxLayout()
        for button in (self.download_button, self.use_button, self.verify_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.import_button)
        layout.addLayout(buttons)
        layout.addWidget(self.threads)
        layout.addWidget(self.panel)
        status = QHBoxLayout()
        status.addWidget(self.status, 1)
        status.addWidget(self.fallback_button)
        layout.addLayout(status)
        layout.addWidget(self.speech)
        layout.addStretch(1)

    def _connect(self) -> None:
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)
        self.recommended_button.clicked.connect(self.download_recommended)
        self.download_button.clicked.connect(self.download_selected)
        self.use_button.clicked.connect(self.use_selected)
        self.verify_button.clicked.connect(self.verify_selected)
        self.import_button.clicked.connect(self.choose_import_file)
        self.fallback_button.clicked.connect(self.download_fallback)
        self.panel.cancel_requested.connect(self.cancel_download)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.cancel_download)

    # Listing

    def refresh(self) -> None:
        self.context.run(
            self.models.rows, receiver=self, success=self._show_rows, doing="list models"
        )

    def _show_rows(self, rows: list[ModelRow]) -> None:
        chosen = self.selected_row()
        self.loading.hide()
        self.model.set_rows(rows)
        self._fit_table()
        self.model.set_in_use(getattr(self.context.assistant.model, "path", None))
        first_run = self.context.assistant.model is None and not any(r.installed for r in rows)
        self.banner.setVisible(first_run)
        default = next((r for r in rows if r.entry and r.entry.default and r.downloadable), None)
        self.recommended_button.setVisible(default is not None)
        if default is not None:
            self.recommended_button.setText(f"Download {default.label} · {file_size(default.size)}")
        wanted = next((r for r in rows if r.path and r.path == self._wanted), None)
        fallback = next((r for r in rows if self.model.is_in_use(r)), rows[0] if rows else None)
        target = wanted or chosen or fallback
        self._wanted = None
        if target is not None:
            self.select(target.key)
        self._update_buttons()
        self._arrived(wanted)
        self.inventory_did_load.emit()

    def _fit_table(self) -> None:
        """Just tall enough for every row, up to a dozen: the page scrolls, the table need not."""
        count = min(max(self.model.rowCount(), 4), TABLE_ROWS_MAX)
        rows = self.table.verticalHeader().defaultSectionSize() * count
        header = self.table.horizontalHeader().sizeHint().height()
        self.table.setFixedHeight(rows + header + 2 * self.table.frameWidth())

    def _arrived(self, wanted: ModelRow | None) -> None:
        """Say what the wanted file's row is there for; with no model loaded, put it in use."""
        announce, use = self._announce, self._use_wanted
        self._announce, self._use_wanted = None, False
        if wanted is None:
            return
        if announce is not None:
            self._say(*announce)
        if use and self.context.assistant.model is None:
            self.use_selected()

    def _expect(self, path: Path, text: str) -> None:
        """Re-read the list; once `path` is listed, say `text` (and use it if none is in use)."""
        self._wanted = path
        self._announce = (text, "good")
        self._use_wanted = self.context.assistant.model is None
        self.refresh()

    def selected_row(self) -> ModelRow | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.rows[rows[0].row()] if rows else None

    def select(self, key: str) -> None:
        row = self.model.row_of(key)
        if row is not None:
            self.table.selectRow(row)

    def _update_buttons(self, *_: object) -> None:
        row = self.selected_row()
        installed = row is not None and row.installed is not None
        resumable = row is not None and row.partial_bytes > 0
        self.download_button.setText("Resume download" if resumable else "Download")
        self.download_button.setEnabled(row is not None and row.downloadable and self.job is None)
        in_use = row is not None and self.model.is_in_use(row)
        self.use_button.setEnabled(installed and not in_use and not self._loading_model)
        self.verify_button.setEnabled(installed)

    def _say(self, text: str, tone: Tone | None = None) -> None:
        self.status.setText(text)
        self.status.setToolTip("")
        set_tone(self.status, tone)

    # Using, verifying, importing

    def use_selected(self) -> None:
        row = self.selected_row()
        if row is None or row.installed is None:
            return
        assistant, models = self.context.assistant, self.models
        self._loading_model = True
        self._update_buttons()
        self._say(f"Loading {row.label}…")

        def failed(error: Exception) -> None:
            self._loading_model = False
            self._update_buttons()
            self._say("")
            self.context.errors.show(self, f"load {row.label}", error)

        run_op(
            self.context.pool,
            lambda: assistant.use_model(models.load_row(row)),
            receiver=self,
            success=lambda _: self._now_using(row),
            failure=failed,
        )

    def _now_using(self, row: ModelRow) -> None:
        assert row.path is not None
        self._loading_model = False
        self.model.set_in_use(row.path)
        self._update_buttons()
        self._say(f"Now using {row.label}. New conversations use it.", "good")
        self.model_did_change.emit(str(row.path))

    def verify_selected(self) -> None:
        row = self.selected_row()
        if row is None or row.path is None:
            return
        path, models = row.path, self.models
        self._say(f"Checking {row.label}…")
        self.context.run(
            lambda: models.verify(path),
            receiver=self,
            success=lambda summary: self._verified(row, summary),
            doing=f"verify {row.label}",
        )

    def _verified(self, row: ModelRow, summary: GGUFSummary) -> None:
        kind = " · ".join(part for part in (summary.architecture, summary.quantization) if part)
        text = f"{row.label} is intact ({kind}, {file_size(summary.size)})."
        self._say(text, "good")
        self.verify_did_finish.emit(text)

    def choose_import_file(self) -> None:
        dialog = QFileDialog(self, "Import a model", str(Path.home()), "GGUF models (*.gguf)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda name: self.import_file(Path(name)))
        self.import_dialog = dialog
        dialog.open()

    def import_file(self, source: Path) -> None:
        self._say(f"Importing {source.name}…")
        doing = f"import {source.name}"
        models = self.models

        def failed(error: Exception) -> None:
            self._say(f"Could not {doing}: {describe_error(error)[0]}", "bad")
            self.context.errors.show(self, doing, error)

        run_op(
            self.context.pool,
            lambda: models.import_and_verify(source),
            receiver=self,
            success=self._imported,
            failure=failed,
        )

    def _imported(self, result: tuple[Path, GGUFSummary]) -> None:
        path, _summary = result
        self._expect(path, f"Imported {path.name}; it is checked and ready to use.")
