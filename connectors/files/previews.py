"""What a file tool will do, in words, shown on its card before it runs.

Every path and name is shown with `names.shown`, so a control, invisible or direction character
in it appears as an escape (`\\u202e`) instead of changing what the user reads and approves.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import hearth
from hearth.connectors.files.names import shown

SHOWN_NAMES = 5


def preview_move(arguments: Mapping[str, Any]) -> str:
    sources = [Path(s) for s in arguments.get("sources", [])]
    origin = _common_folder(sources)
    destination = _folder(str(arguments.get("destination") or ""))
    return f"Move {_count(sources)} from {origin} to {destination}: {_names(sources)}"


def preview_rename(arguments: Mapping[str, Any]) -> str:
    path = Path(arguments.get("path", ""))
    new_name = shown(str(arguments.get("new_name")))
    return f"Rename {shown(path.name)} to {new_name} (in {shown(str(path.parent))})"


def preview_create_folder(arguments: Mapping[str, Any]) -> str:
    return f"Create the folder {shown(str(arguments.get('path')))}"


def preview_write(arguments: Mapping[str, Any]) -> str:
    text = str(arguments.get("text", ""))
    verb = "Write (replacing if it exists)" if arguments.get("overwrite") else "Create"
    cut = text if len(text) <= 400 else text[:400] + f"… ({len(text)} characters)"
    # The text keeps its line breaks, tabs and backslashes; what could hide or recolour it not.
    return f"{verb} {shown(str(arguments.get('path')))}:\n{hearth.shown(cut, lines=True)}"


def preview_trash(arguments: Mapping[str, Any]) -> str:
    paths = [Path(p) for p in arguments.get("paths", [])]
    return f"Move {_count(paths)} from {_common_folder(paths)} to the trash: {_names(paths)}"


def _count(paths: list[Path]) -> str:
    return "1 item" if len(paths) == 1 else f"{len(paths)} items"


def _names(paths: list[Path]) -> str:
    names = [shown(p.name) for p in paths[:SHOWN_NAMES]]
    more = len(paths) - SHOWN_NAMES
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")


def _common_folder(paths: list[Path]) -> str:
    """The one folder the paths are in, or "several folders" when they share no real one."""
    if not paths:
        return "?"
    folders = {str(p.parent) for p in paths}
    if len(folders) == 1:
        return _folder(folders.pop())
    try:
        common = os.path.commonpath(list(folders))
    except ValueError:  # full and relative paths mixed
        return "several folders"
    if not Path(common).is_absolute() or common == Path(common).anchor:
        return "several folders"
    return f"several folders in {shown(common)}"


def _folder(text: str) -> str:
    """A folder as the card names it; one that is not a full path is quoted and says so."""
    if not text or text == ".":
        return "an unnamed folder"
    if not Path(text).is_absolute():
        return f"'{shown(text)}' (not a full path)"
    return shown(text)
