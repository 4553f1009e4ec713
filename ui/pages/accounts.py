"""The Accounts page: a setup form for every connector that declares settings, and a status
section for one that reports what it can do here (the system connector's strip)."""

from __future__ import annotations

from typing import cast

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
from hearth.ui.pages.password_store import PasswordsLine
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
            "Where Hearth connects on your behalf. Passwords are never written to Hearth's "
            "settings files, and are never shown again once saved.",
        )
        self.passwords = PasswordsLine(context.settings.secrets)
        self.passwords.store_changed.connect(self._store_changed)
        layout.addWidget(self.passwords)
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
        body.addWidget(self.stack, 1)
        layout.addLayout(body, 1)
        self.connector_list.currentRowChanged.connect(self._open_section)
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
        # A scroll area per section: each scrolls as far as its own content, not the tallest's.
        self.stack.addWidget(_scrolling(panel))

    def _store_changed(self) -> None:
        # A store just made or unlocked may hold what the forms could not read before.
        for panel in self.panels.values():
            panel.reload()

    def show_connector(self, name: str) -> ConnectorSettingsPanel:
        panel = self.panels[name]
        self.connector_list.setCurrentRow(self._row_of(panel))
        return panel

    def show_status(self, name: str) -> ConnectorStatusPanel:
        panel = self.status_panels[name]
        self.connector_list.setCurrentRow(self._row_of(panel))
        return panel

    def section_area(self) -> QScrollArea | None:
        """The scroll area of the section shown now."""
        area = self.stack.currentWidget()
        return area if isinstance(area, QScrollArea) else None

    def _row_of(self, panel: QWidget) -> int:
        return next(
            row
            for row in range(self.stack.count())
            if cast(QScrollArea, self.stack.widget(row)).widget() is panel
        )

    def _open_section(self, row: int) -> None:
        self.stack.setCurrentIndex(row)
        area = self.section_area()
        if area is not None:  # a section opens at its top, wherever it was left
            area.verticalScrollBar().setValue(0)
            area.horizontalScrollBar().setValue(0)


def _scrolling(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    return area
