"""The files connector: granted folders kept indexed, their tools, and `hearth files`.

One `FilesConnector` per plugin load, made in the plugin's hook; it owns its `FileLibrary` (the
settings, the index and the indexer) and hands it to its tools and its commands. Front ends
reach the granted folders through the core's `FolderAccess`, which it implements.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import click

from hearth import Connector, FolderAccess, IndexStatus
from hearth.connectors.files.checks import CallChecks
from hearth.connectors.files.creating import CreatingTools
from hearth.connectors.files.grants import NAME
from hearth.connectors.files.library import FileLibrary
from hearth.connectors.files.reading import ReadingTools
from hearth.connectors.files.settings import FilesSettings
from hearth.connectors.files.writing import WritingTools


class FilesConnector(
    ReadingTools, WritingTools, CreatingTools, CallChecks, Connector, FolderAccess
):
    """Search, read and organise files in the folders the user granted, and nowhere else."""

    name = NAME
    title = "Files"
    description = "Search, read and organise files in the folders you grant."
    keywords = ("file", "files", "folder", "document", "documents", "pdf", "docx", "note", "notes")
    settings = FilesSettings
    # Every file tool's scope argument names paths, matched against path rules.
    scope_kind = "path"

    def __init__(self, library: FileLibrary | None = None) -> None:
        super().__init__()
        self.library = library or FileLibrary()

    def roots(self) -> list[Path]:
        """The granted folders that exist now, as real paths."""
        return self.library.roots()

    def grant(self, folder: Path) -> Path:
        """Let Hearth see `folder` and everything in it; returns the real path granted."""
        return self.library.grant(folder)

    def revoke(self, folder: Path) -> None:
        """Stop seeing `folder`; its entries leave the index."""
        self.library.revoke(folder)

    def indexed_count(self, root: Path) -> int:
        return self.library.indexed_count(root)

    def status(self) -> IndexStatus:
        return self.library.status()

    def subscribe(self, listener: Callable[[IndexStatus], None]) -> Callable[[], None]:
        """Call `listener` with each new status, from the indexer's thread; returns unsubscribe."""
        return self.library.subscribe(listener)

    def commands(self) -> Iterable[click.Command]:
        # Here, not at the top: only `hearth files` needs it, never the window or a turn.
        from hearth.connectors.files.cli import files_commands

        return [files_commands(self.library)]

    def start(self) -> None:
        """Index every granted folder, then keep the index current until `stop()`."""
        self.library.start()

    def stop(self) -> None:
        self.library.stop()

    def close(self) -> None:
        """Stop, then let go of the index and the parser processes."""
        self.library.close()
