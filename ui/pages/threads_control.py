"""The processor-threads setting: automatic, or a fixed count, applied without a reload."""

from __future__ import annotations

import psutil
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from hearth.models.threads_setting import apply_threads, save_threads, saved_threads, thread_policy
from hearth.ui.context import UiContext

AUTOMATIC = "Automatic"


class ThreadsControl(QWidget):
    """ "Processor threads: [Automatic ▾]" with what automatic means on this computer."""

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.choice = QComboBox()
        self.choice.setAccessibleName("Processor threads")
        self.choice.addItem(AUTOMATIC, None)
        for count in range(1, (psutil.cpu_count() or 1) + 1):
            self.choice.addItem(str(count), count)
        saved = saved_threads()
        self.choice.setCurrentIndex(max(0, self.choice.findData(saved)) if saved else 0)
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
        self.choice.currentIndexChanged.connect(self._chosen)

    def _chosen(self) -> None:
        count = self.choice.currentData()
        save_threads(count)
        self._explain()
        model = self.context.assistant.model
        policy = thread_policy(window=True)
        self.context.run(
            lambda: apply_threads(model, policy), receiver=self, doing="change the threads"
        )

    def _explain(self) -> None:
        policy = thread_policy(window=True)
        if self.choice.currentData() is None:
            self.hint.setText(
                f"Hearth uses {policy.describe()}, keeping a core for this window, and fewer "
                "while other programs keep the processor busy."
            )
        else:
            self.hint.setText(f"Hearth uses exactly {policy.describe()}.")
