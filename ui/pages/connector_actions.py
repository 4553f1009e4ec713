"""The buttons for what a connector offers the user now (send mail that waited offline).

Read off the UI thread with the status line. An action with something to confirm asks first,
with Cancel as the default; it then runs on the pool and its answer is reported by the panel.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QMessageBox, QPushButton, QWidget

from hearth import Connector, ConnectorAction
from hearth.ui.context import UiContext
from hearth.ui.ops import run_op


class ConnectorActions(QWidget):
    """A row of buttons, one per `Connector.actions()`; hidden while there are none."""

    action_done = Signal(str)  # what the action said
    action_failed = Signal(str)  # why it did not run

    def __init__(self, context: UiContext, connector: Connector, parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        self.connector = connector
        self.buttons: list[QPushButton] = []
        self.confirm_box: QMessageBox | None = None
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.addStretch(1)
        self.hide()

    def refresh(self) -> None:
        run_op(self.context.pool, self.connector.actions, receiver=self, success=self._show)

    def _show(self, actions: Sequence[ConnectorAction]) -> None:
        for button in self.buttons:
            button.deleteLater()
        self.buttons = []
        for action in actions:
            button = QPushButton(action.label)
            button.setAutoDefault(False)
            button.clicked.connect(lambda _=False, chosen=action: self._ask(chosen))
            self._row.insertWidget(self._row.count() - 1, button)
            self.buttons.append(button)
        self.setVisible(bool(self.buttons))

    def _ask(self, action: ConnectorAction) -> None:
        if not action.confirm:
            self._run(action)
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Hearth",
            action.label.rstrip("…"),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setInformativeText(action.confirm)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.finished.connect(lambda answer: self._run_if(answer, action))
        self.confirm_box = box
        box.open()

    def _run_if(self, answer: int, action: ConnectorAction) -> None:
        if answer == QMessageBox.StandardButton.Yes:
            self._run(action)

    def _run(self, action: ConnectorAction) -> None:
        for button in self.buttons:
            button.setEnabled(False)
        run_op(
            self.context.pool,
            action.run,
            receiver=self,
            success=lambda said: self.action_done.emit(str(said)),
            failure=lambda error: self.action_failed.emit(str(error)),
        )
