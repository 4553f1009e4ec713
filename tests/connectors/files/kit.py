"""The files connector as a plugin object over a given connector, like any third-party plugin."""

from __future__ import annotations

from collections.abc import Callable

from hearth import Connector, hookimpl
from hearth.connectors.files import FilesConnector


class FilesPlugin:
    def __init__(self, connector: FilesConnector) -> None:
        self.connector = connector

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        register(self.connector)
