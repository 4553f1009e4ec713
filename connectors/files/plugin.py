"""Registers the files connector and `hearth files` through Hearth's plugin hooks."""

from __future__ import annotations

from collections.abc import Callable

import click

from hearth import Connector, data_dir, hookimpl
from hearth.connectors.files.cli import files
from hearth.connectors.files.library import NAME, FileLibrary
from hearth.connectors.files.reading import KEYWORDS, reading_tools
from hearth.connectors.files.settings import FilesSettings
from hearth.connectors.files.writing import writing_tools

_libraries: dict[str, FileLibrary] = {}


def shared_library() -> FileLibrary:
    """This process's library for the current data folder (tests give each its own)."""
    key = str(data_dir())
    if key not in _libraries:
        _libraries[key] = FileLibrary()
    return _libraries[key]


def files_connector(files_library: FileLibrary) -> Connector:
    return Connector(
        name=NAME,
        title="Files",
        description="Search, read and organise files in the folders you grant.",
        tools=(*reading_tools(files_library), *writing_tools(files_library)),
        settings=FilesSettings,
        keywords=KEYWORDS,
        start=files_library.start,
        stop=files_library.stop,
    )


@hookimpl
def register_connectors(register: Callable[[Connector], None]) -> None:
    register(files_connector(shared_library()))


@hookimpl
def register_commands(register: Callable[[click.Command], None]) -> None:
    register(files)
