"""The Models page's downloads: start, progress, cancel (keeping the part), finish."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from hearth import DownloadProgress, HubUnreachable, ModelRow, Models, ModelUnavailable, shown
from hearth.ui.context import UiContext
from hearth.ui.pages.catalog_model import ModelTableModel
from hearth.ui.pages.download_job import DownloadJob
from hearth.ui.pages.download_panel import DownloadPanel

FINISHED_PANEL_MS = 5000
# Offline, the way to a model is the Import button beside this line, not a terminal command.
OFFLINE = (
    "Offline: Hearth could not reach the model hub. Download {label} on another computer,"
    " bring the .gguf file here and choose “{button}” to add it."
)


class DownloadingPage(QWidget):
    """The download half of `ModelsPage`, which provides the table and the status line."""

    download_did_progress = Signal(object)  # DownloadProgress
    download_did_end = Signal(str)  # "done", "cancelled" or "failed"

    context: UiContext
    models: Models
    model: ModelTableModel
    panel: DownloadPanel
    job: DownloadJob | None
    fallback_button: QPushButton  # hidden until a model's repos are missing and it has a fallback
    import_button: QPushButton
    status: QLabel

    # Provided by ModelsPage: the table's selection, the list, the status line.
    selected_row: Callable[[], ModelRow | None]
    select: Callable[[str], None]
    refresh: Callable[[], None]
    _say: Callable[..., None]  # (text, tone=None)
    _update_buttons: Callable[..., None]
    _expect: Callable[[Path, str], None]

    def download_recommended(self) -> None:
        default = next((r for r in self.model.rows if r.entry and r.entry.default), None)
        if default is not None:
            self.select(default.key)
            self.download_selected()

    def download_selected(self) -> None:
        row = self.selected_row()
        if row is None or not row.downloadable or self.job is not None:
            return
        assert row.entry is not None
        self.fallback_button.hide()
        self.job = job = DownloadJob.of_model(self.models, row.entry, self)
        job.progressed.connect(lambda progress: self._progressed(row, progress))
        job.finished.connect(lambda path: self._downloaded(row, path))
        job.cancelled.connect(lambda kept: self._download_stopped(row, "cancelled", kept))
        job.failed.connect(lambda error: self._download_failed(row, error))
        self.panel.begin(row.label)
        self.model.set_download(row.key, row.partial_bytes / row.size)
        self._say("")
        self._update_buttons()
        job.start(self.context.pool)

    def cancel_download(self) -> None:
        if self.job is not None and not self.job.is_cancelled:
            self.job.cancel()
            self.panel.cancelling()

    def _progressed(self, row: ModelRow, progress: DownloadProgress) -> None:
        self.panel.show_progress(progress)
        self.model.set_download(row.key, progress.fraction)
        self.download_did_progress.emit(progress)

    def _downloaded(self, row: ModelRow, path: Path) -> None:
        self.panel.end(f"Downloaded {row.label}", f"Checked against the hub's checksum: {path}")
        QTimer.singleShot(FINISHED_PANEL_MS, self, self._hide_finished_panel)
        self._download_stopped(row, "done")
        self._expect(path, f"{row.label} is installed. Choose “Use this model” to switch to it.")

    def _download_failed(self, row: ModelRow, error: Exception) -> None:
        fallback = self._fallback_row(error)
        if isinstance(error, HubUnreachable):
            button = self.import_button.text().replace("&", "")
            self._say(OFFLINE.format(label=row.label, button=button), "warn")
            self.status.setToolTip(shown(str(error)))  # the address and the cause, for the curious
        elif fallback is None:
            self.context.errors.show(self, f"download {row.label}", error)
        else:
            self._say(str(error), "warn")  # one sentence that names the fallback
            name = fallback.label.split(",")[0]
            self.fallback_button.setText(f"Download {name} instead")
            self.fallback_button.setProperty("fallback", fallback.key)
            self.fallback_button.show()
        self._download_stopped(row, "failed")

    def _fallback_row(self, error: Exception) -> ModelRow | None:
        """The row to offer when a model's repos are all missing, if it can be downloaded."""
        if not isinstance(error, ModelUnavailable) or error.fallback is None:
            return None
        row = next((r for r in self.model.rows if r.key == error.fallback), None)
        return row if row is not None and row.downloadable else None

    def download_fallback(self) -> None:
        """Start the download the fallback button offers."""
        key = self.fallback_button.property("fallback")
        if isinstance(key, str):
            self.select(key)
            self.download_selected()

    def _download_stopped(self, row: ModelRow, how: str, kept: str = "") -> None:
        if how != "done":
            self.panel.hide()
        if how == "cancelled":
            self._say(f"Paused. {kept} Choose “Resume download” to continue.", "warn")
        self.model.set_download(row.key, None)
        if self.job is not None:
            self.job.deleteLater()
        self.job = None
        if how != "done":
            self.refresh()  # a finished download re-reads the list itself, see `_downloaded`
        self.download_did_end.emit(how)

    def _hide_finished_panel(self) -> None:
        if self.job is None:
            self.panel.hide()
