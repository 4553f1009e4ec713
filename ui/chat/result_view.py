"""A finished card's result: a readable summary, with the raw result one click away."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from hearth.ui.chat.outcome import details, has_details

SHOW, HIDE = "Show details", "Hide details"


class ResultView(QWidget):
    """`summary` always shows; `details` (the raw result) opens with the toggle."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        # A result's warnings (a lookalike sender, hidden text removed) are not a success.
        self.warnings = _label("taint")
        self.summary = _label("result")
        self.toggle = QPushButton(SHOW)
        self.toggle.setObjectName("detailsToggle")
        self.toggle.setProperty("flat", True)
        self.toggle.setCheckable(True)
        self.toggle.setAutoDefault(False)
        self.toggle.toggled.connect(self._show_details)
        self.details = _label("resultDetails")
        self.details.hide()
        layout.addWidget(self.warnings)
        layout.addWidget(self.summary)
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.details)

    def show_result(self, text: str, summary: str, raw: str) -> None:
        """`text` in the summary line; the toggle appears when `raw` says more than `summary`."""
        mark, _, rest = text.partition("  ") if text.startswith("✓") else ("", "", text)
        lines = rest.splitlines()
        warned = [line for line in lines if line.startswith("⚠")]
        plain = "\n".join(line for line in lines if not line.startswith("⚠"))
        self.warnings.setText("\n".join(warned))
        self.warnings.setVisible(bool(warned))
        if warned:
            text = f"{mark}  {plain}" if mark and plain else plain
        self.summary.setText(text)
        self.summary.setVisible(bool(text))
        more = has_details(raw, summary)
        self.toggle.setVisible(more)
        self.details.setText(details(raw) if more else "")
        if not more:
            self.toggle.setChecked(False)
        self._show_details(self.toggle.isChecked())

    def _show_details(self, shown: bool) -> None:
        self.toggle.setText(HIDE if shown else SHOW)
        self.details.setVisible(shown and self.toggle.isVisibleTo(self))
        self.updateGeometry()


def _label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label
