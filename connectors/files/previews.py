"""What a file tool will do, in words, shown on its card before it runs."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

SHOWN_NAMES = 5


def preview_move(arguments: Mapping[str, Any]) -> str:
    sources = [Path(s) for s in arguments.get("sources", [])]
    origin = _common_folder(sources)
    return (
        f"Move {_count(sources)} from {origin} to {arguments.get('destination')}: {_names(sources)}"
    )


def preview_rename(arguments: Mapping[str, Any]) -> str:
    path = Path(arguments.get("path", ""))
    return f"Rename {path.name} to {arguments.get('new_name')} (in {path.parent})"


def preview_create_folder(arguments: Mapping[str, Any]) -> str:
    return f"Create the folder {arguments.get('path')}"


def preview_write(arguments: Mapping[str, Any]) -> str:
    text = str(arguments.get("text", ""))
    verb = "Write (replacing if it exists)" if arguments.get("overwrite") else "Create"
    shown = text if len(text) <= 400 else text[:400] + f"… ({len(text)} characters)"
    return f"{verb} {arguments.get('path')}:\n{shown}"


def preview_trash(arguments: Mapping[str, Any]) -> str:
    paths = [Path(p) for p in arguments.get("paths", [])]
    return f"Move {_count(paths)} from {_common_folder(paths)} to the trash: {_names(paths)}"


def _count(paths: list[Path]) -> str:
    return "1 item" if len(paths) == 1 else f"{len(paths)} items"


def _names(paths: list[Path]) -> str:
    names = [p.name for p in paths[:SHOWN_NAMES]]
    more = len(paths) - SHOWN_NAMES
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")


def _common_folder(paths: list[Path]) -> str:
    if not paths:
        return "?"
    try:
        return os.path.commonpath([str(p.parent) for p in paths])
    except ValueError:
        return "several folders"
