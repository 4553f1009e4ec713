"""Files connector: granted folders, a live full-text index, safe file tools with undo.

Names are imported on first use: parser worker processes import this package too, and they
need none of the library, the watcher or the tools.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hearth.connectors.files.connector import FilesConnector
    from hearth.connectors.files.errors import FilesError, PathRefused
    from hearth.connectors.files.library import FileLibrary

_EXPORTS = {
    "FilesConnector": "connector",
    "FileLibrary": "library",
    "FilesError": "errors",
    "PathRefused": "errors",
}

__all__ = ["FileLibrary", "FilesConnector", "FilesError", "PathRefused"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
