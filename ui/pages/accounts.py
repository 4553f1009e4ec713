"""The Accounts page: a setup form for every connector that declares settings, and a status
section for one that reports what it can do here (the system connector's strip)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QStackedWidget,
    QWidget,
)

from hearth import Connector
from hearth.ui.context import UiContext
from hearth.ui.pages.chrome import explanation, page_layout
from hearth.ui.pages.connector_settings import ConnectorSettingsPanel
from hearth.ui.pages.connector_status import ConnectorStatusPanel
from hearth.ui.pages.status_strip import reports_status

NOTHING_TO_SET_UP = (
    "None of the installed connectors needs setting up. Connectors that reach a server, "
    "such as mail or calendars, appear here once installed."
)


class AccountsPage(QWidget):
    """Lists connectors with settings; forms come from each one's settings model."""

    title = "Accounts"

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.panels: dict[str, ConnectorSettingsPanel] = {}
        self.status_panels: dict[str, ConnectorStatusPanel] = {}
        self.connector_list = QListWidget()
        self.connector_list.setStyleSheet(
            "QListWidget { outline: 0; } QListWidget::item { padding: 6px 8px; }"
        )
        self.stack = QStackedWidget()
        layout = page_layout(
            self,
            self.title,
            "Where Hearth connects on your behalf. Passwords are kept in your system keyring, "
            "never in Hearth's files, and are never shown again once saved.",
        )
        connectors = [
            c for c in context.assistant.connectors() if c.settings is not None or reports_status(c)
        ]
        if not connectors:
            layout.addWidget(explanation(NOTHING_TO_SET_UP))
            layout.addStretch(1)
            return
        for connector in connectors:
            self._add(connector)
        body = QHBoxLayout()
        body.setSpacing(16)
        body.addWidget(self.connector_list)
        body.addWidget(self._scrolling(self.stack), 1)
        layout.addLayout(body, 1)
        self.connector_list.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.connector_list.setCurrentRow(0)
        self.connector_list.setFixedWidth(max(180, self.connector_list.sizeHintForColumn(0) + 32))

    def _add(self, connector: Connector) -> None:
        panel: QWidget
        if connector.settings is not None:
            panel = self.panels[connector.name] = ConnectorSettingsPanel(self.context, connector)
        else:
            panel = self.status_panels[connector.name] = ConnectorStatusPanel(
                self.context, connector
            )
        item = QListWidgetItem(connector.title)
        item.setToolTip(connector.description)
        self.connector_list.addItem(item)
        self.stack.addWidget(panel)

    def show_connector(self, name: str) -> ConnectorSettingsPanel:
        panel = self.panels[name]
        self.connector_list.setCurrentRow(self.stack.indexOf(panel))
        return panel

    def show_status(self, name: str) -> ConnectorStatusPanel:
        panel = self.status_panels[name]
        self.connector_list.setCurrentRow(self.stack.indexOf(panel))
        return panel

    @staticmethod
    def _scrolling(widget: QWidget) -> QScrollArea:
        area = QScrollArea()
        area.setWidget(widget)
        area.setWidgetResizable(True)
        area.setFrameShape(QScrollArea.Shape.NoFrame)
        return area
