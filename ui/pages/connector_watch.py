"""Hearing when connectors change (an MCP server came up, stopped answering), on the UI thread."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QObject, Signal

from hearth import Connector


class ConnectorWatch(QObject):
    """Emits `connectors_did_change` (on this object's thread) after any followed connector
    says `connector_did_change()`, from whatever thread it says it."""

    connectors_did_change = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ends: list[Callable[[], None]] = []

    def follow(self, connectors: Iterable[Connector]) -> None:
        """Follow exactly `connectors` from now on."""
        self.stop()
        # A signal emitted from another thread is queued to this object's own.
        self._ends = [
            connector.add_change_listener(lambda _changed: self.connectors_did_change.emit())
            for connector in connectors
        ]

    def stop(self) -> None:
        ends, self._ends = self._ends, []
        for end in ends:
            end()
