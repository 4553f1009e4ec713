"""The processor-threads setting: automatic, or a fixed count, applied without a reload."""

from __future__ import annotations

import psutil
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from hearth import ThreadPolicy
from hearth.ui.context import UiContext

AUTOMATIC = "Automatic"


class ThreadsControl(QWidget):
    """The "Processor threads: [Automatic ▾]" row, saying what the choice means here."""

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.models = context.assistant.models
        self.choice = QComboBox()
        self.choice.setAccessibleName("Processor threads")
        self.choice.addItem(AUTOMATIC, None)
        for count in range(1, (psutil.cpu_count() or 1) + 1):
            self.choice.addItem(str(count), count)
        self.choice.setEnabled(False)  # until the saved setting is read, on the pool
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        label = QLabel("Processor threads:")
        label.setBuddy(self.choice)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(label)
        layout.addWidget(self.choice)
        layout.addWidget(self.hint, 1)
        self._explain()
        context.run(
            self.models.saved_threads,
            receiver=self,
            success=self._show_saved,
            doing="read a setting",
        )

    def _show_saved(self, saved: int | None) -> None:
        self.choice.setCurrentIndex(max(0, self.choice.findData(saved)) if saved else 0)
        self._explain()
        self.choice.setEnabled(True)
        self.choice.currentIndexChanged.connect(self._chosen)

    def _chosen(self) -> None:
        count = self.choice.currentData()
        self._explain()
        model, models = self.context.assistant.model, self.models

        def save_and_apply() -> None:
            models.save_threads(count)
            models.apply_threads(model, models.thread_policy())

        self.context.run(save_and_apply, receiver=self, doing="change the threads")

    def _explain(self) -> None:
        count = self.choice.currentData()
        policy = ThreadPolicy.fixed(count) if count else ThreadPolicy.automatic()
        if count is None:
            self.hint.setText(
                f"Hearth uses {policy.describe()}, keeping a core for this window, and fewer "
                "while other programs keep the processor busy."
            )
        else:
            self.hint.setText(f"Hearth uses exactly {policy.describe()}.")
