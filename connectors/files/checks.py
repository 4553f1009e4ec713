"""Cheap checks run before anyone is asked, so a card never asks about a call that can only fail.

Each raises `PathRefused` (a `ToolFailure`) when a path is relative or garbage, lies outside the
granted folders, or does not exist where it must. They only look: the tools still check again
through their own descriptors when they run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hearth.connectors.files.library import FileLibrary
from hearth.connectors.files.roots import locate, resolve_inside


class CallChecks:
    """The `check=` hooks of the file tools, by tool."""

    library: FileLibrary

    def canonical_resource(self, raw: str) -> str:
        """A path as the file tools walk it: escapes undone, below its grant's real folder.

        The gate rules on this, and the tool runs with it, so the two cannot read one spelling
        two ways; a path `locate` refuses is refused before anyone is asked.
        """
        return str(locate(raw, self.library.grants()).path) if raw else raw

    def check_folder(self, arguments: Mapping[str, Any]) -> None:
        """files.search and files.list: a folder, if named, exists inside a grant."""
        folder = arguments.get("folder")
        if folder:
            self._exist(folder)

    def check_path(self, arguments: Mapping[str, Any]) -> None:
        """files.read, files.rename: the path exists inside a grant."""
        self._exist(arguments.get("path"))

    def check_move(self, arguments: Mapping[str, Any]) -> None:
        """files.move: every source and the destination folder exist inside grants."""
        self._exist(*arguments.get("sources") or [], arguments.get("destination"))

    def check_trash(self, arguments: Mapping[str, Any]) -> None:
        self._exist(*arguments.get("paths") or [])

    def check_new_path(self, arguments: Mapping[str, Any]) -> None:
        """files.create_folder, files.write_text: the parent folder exists inside a grant."""
        self._inside([arguments.get("path")], must_exist=False)

    def _exist(self, *paths: object) -> None:
        self._inside(paths, must_exist=True)

    def _inside(self, paths: Iterable[object], *, must_exist: bool) -> None:
        roots = self.library.roots()
        for path in paths:
            resolve_inside(str(path or ""), roots, must_exist=must_exist)
