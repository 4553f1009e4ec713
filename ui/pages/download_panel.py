"""The strip under the Models table showing one download: bar, bytes, speed, time left."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QProgressBar, QPushButton, QWidget

from hearth import DownloadProgress
from hearth.ui.pages.chrome import explanation
from hearth.ui.pages.units import duration, file_size, percent, speed


class DownloadPanel(QFrame):
    """Hidden until a download starts; Cancel asks the running job to stop."""

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.heading = QLabel()
        font = self.heading.font()
        font.setWeight(font.Weight.DemiBold)
        self.heading.setFont(font)
        self.bar = QProgressBar()
        self.bar.setRange(0, 100)
        self.bar.setTextVisible(False)  # the percentage leads the line below instead
        self.bar.setFixedHeight(12)
        self.bar.setMinimumWidth(320)
        self.detail = explanation("")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_requested)
        layout = QGridLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.addWidget(self.heading, 0, 0, 1, 2)
        layout.addWidget(self.bar, 1, 0)
        layout.addWidget(self.cancel_button, 1, 1)
        layout.addWidget(self.detail, 2, 0, 1, 2)
        layout.setColumnStretch(0, 1)
        self.hide()

    def begin(self, label: str) -> None:
        self.heading.setText(f"Downloading {label}")
        self.bar.setRange(0, 0)  # busy until the first report: the hub is being asked
        self.detail.setText("Asking the model hub for the file…")
        self.cancel_button.setEnabled(True)
        self.cancel_button.show()
        self.show()

    def show_progress(self, progress: DownloadProgress) -> None:
        self.bar.setRange(0, 100)
        self.bar.setValue(int(progress.fraction * 100))
        self.detail.setText(describe(progress))

    def cancelling(self) -> None:
        self.cancel_button.setEnabled(False)
        self.detail.setText("Stopping… the part already downloaded is kept.")

    def end(self, heading: str, detail: str) -> None:
        """Leave the outcome on show; the page hides the panel a little later."""
        self.heading.setText(heading)
        self.detail.setText(detail)
        self.cancel_button.hide()


def describe(progress: DownloadProgress) -> str:
    """ "45% · 392 MB of 870 MB · 12.4 MB/s · about 38 s left"."""
    parts = [
        percent(progress.fraction),
        f"{file_size(progress.bytes_done)} of {file_size(progress.bytes_total)}",
    ]
    if progress.speed > 0:
        parts.append(speed(progress.speed))
    if progress.eta is not None and progress.bytes_done < progress.bytes_total:
        parts.append(f"about {duration(progress.eta)} left")
    return " · ".join(parts)
