"""A connector's Accounts section when it has no settings: what it can do here, and actions.

The status strip and the status line are read when the panel shows and every minute while it
is shown, like a settings panel's line.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from hearth import Connector, shown
from hearth.ui.context import UiContext
from hearth.ui.errors import status_unavailable
from hearth.ui.ops import run_op
from hearth.ui.pages.chrome import explanation, section_heading, set_tone
from hearth.ui.pages.connector_actions import ConnectorActions
from hearth.ui.pages.status_strip import StatusStrip

PANEL_MAX_WIDTH = 640
STATUS_EVERY_MS = 60_000


class ConnectorStatusPanel(QWidget):
    """Heading, description, status strip, status line, actions and a Refresh button."""

    def __init__(
        self, context: UiContext, connector: Connector, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.connector = connector
        self.strip = StatusStrip(context, connector, self)
        self.connector_status = explanation("")
        self.connector_status.setObjectName("connectorStatus")
        self.connector_status.hide()
        self.action_row = ConnectorActions(context, connector, self)
        self.action_row.action_done.connect(self._action_done)
        self.action_row.action_failed.connect(self._action_failed)
        self.said = explanation("")
        self.said.hide()
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setAutoDefault(False)
        self.refresh_button.clicked.connect(self.refresh)
        self.timer = QTimer(self)
        self.timer.setInterval(STATUS_EVERY_MS)
        self.timer.timeout.connect(self.refresh)
        self.setMaximumWidth(PANEL_MAX_WIDTH)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(section_heading(connector.title))
        layout.addWidget(explanation(connector.description))
        layout.addSpacing(6)
        layout.addWidget(self.strip)
        layout.addWidget(self.connector_status)
        layout.addWidget(self.action_row)
        layout.addWidget(self.said)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.refresh_button)
        layout.addLayout(buttons)
        layout.addStretch(1)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()
        self.timer.start()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.timer.stop()

    def refresh(self) -> None:
        self.strip.refresh()
        self.action_row.refresh()
        run_op(
            self.context.pool,
            self.connector.status_line,
            receiver=self,
            success=self._show_line,
            failure=lambda error: self._show_line(status_unavailable(error)),
        )

    def _show_line(self, line: object) -> None:
        # A status line may quote a server (its last error): shown as text, controls visible.
        text = shown(line, lines=True) if isinstance(line, str) else ""
        self.connector_status.setTextFormat(Qt.TextFormat.PlainText)
        self.connector_status.setText(text)
        self.connector_status.setVisible(bool(text))

    def _action_done(self, said: str) -> None:
        self._say(said, None)
        self.refresh()

    def _action_failed(self, said: str) -> None:
        self._say(said, "bad")
        self.refresh()

    def _say(self, text: str, tone: str | None) -> None:
        self.said.setText(text)
        set_tone(self.said, "bad" if tone == "bad" else None)
        self.said.setVisible(bool(text))
