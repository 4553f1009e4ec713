"""The files connector as a plugin object over a given library, like any third-party plugin."""

from __future__ import annotations

from collections.abc import Callable

from hearth import Connector, hookimpl
from hearth.connectors.files import FileLibrary, files_connector


class FilesPlugin:
    def __init__(self, library: FileLibrary) -> None:
        self.library = library

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        register(files_connector(self.library))
