"""Granted folders, and the one check every path from the model goes through.

A path is accepted only in its plain absolute form and only if, followed component by
component on disk, it stays inside a granted folder without crossing a symlink. Relative
paths, `..`, `~`, Windows drive, UNC and alternate-data-stream forms are refused outright,
as are hidden files and folders (names starting with '.'), which Hearth never sees.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from hearth import ToolFailure

_DRIVE = re.compile(r"^[A-Za-z]:")
_HINT = "Use a full path exactly as files.list or files.search show it."


class FilesError(ToolFailure):
    """A file tool could not do what was asked; the message says why, for the model or user."""


class PathRefused(FilesError):
    """A path names something outside the granted folders, or names it in a refused form."""


def real_root(folder: Path) -> Path:
    return Path(os.path.realpath(folder))


def resolve_inside(raw: str, roots: Sequence[Path], *, must_exist: bool = True) -> Path:
    """The real path `raw` names, checked to lie inside one of `roots` (already real paths).

    With `must_exist=False` only the parent must exist: the path is a destination.
    """
    _check_form(raw, must_exist)
    root, inside = _split_at_root(Path(raw), roots)
    current = root
    for index, part in enumerate(inside):
        current = current / part
        last = index == len(inside) - 1
        if current.is_symlink():
            raise PathRefused(f"{raw}: goes through a symbolic link, which Hearth never follows")
        if not last and not current.is_dir():
            raise PathRefused(f"{raw}: {current} is not an existing folder. {_HINT}")
    if must_exist and not os.path.lexists(current):
        raise PathRefused(f"{raw}: no such file or folder. {_HINT}")
    return current


def check_new_name(name: str) -> str:
    """A single file or folder name for a rename or a new entry."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise PathRefused(f"{name!r} is not a plain file name (no folders, no '/', no '..')")
    if name.startswith("."):
        raise PathRefused(f"{name!r}: hidden names (starting with '.') are not allowed")
    if ":" in name or _DRIVE.match(name):
        raise PathRefused(f"{name!r}: ':' is not allowed in names Hearth creates")
    return name


def _check_form(raw: str, must_exist: bool) -> None:
    if not raw:
        raise PathRefused(f"the path is empty. {_HINT}")
    if "\x00" in raw:
        raise PathRefused("the path contains a NUL character")
    if "\\" in raw or raw.startswith("//") or _DRIVE.match(raw):
        raise PathRefused(f"{raw}: Windows drive, UNC and backslash forms are refused. {_HINT}")
    if raw.startswith("~"):
        raise PathRefused(f"{raw}: '~' is not expanded. {_HINT}")
    if not raw.startswith("/"):
        raise PathRefused(f"{raw}: relative paths are refused. {_HINT}")
    parts = raw.split("/")[1:]
    if any(part in (".", "..") for part in parts):
        raise PathRefused(f"{raw}: '.' and '..' are refused. {_HINT}")
    if any(part.startswith(".") for part in parts):
        raise PathRefused(f"{raw}: hidden files and folders are not visible to Hearth")
    # On POSIX a ':' is an ordinary character, so an existing file may have one; a name that
    # does not exist yet with a ':' is the alternate-data-stream form and is never created.
    if any(":" in part for part in parts) and (
        sys.platform == "win32" or not must_exist or not os.path.lexists(raw)
    ):
        raise PathRefused(f"{raw}: 'name:stream' (alternate data stream) forms are refused")


def _split_at_root(given: Path, roots: Sequence[Path]) -> tuple[Path, tuple[str, ...]]:
    """The granted root `given` starts with, and the components below it."""
    for root in sorted(roots, key=lambda r: len(r.parts), reverse=True):
        if given == root or given.is_relative_to(root):
            return root, given.relative_to(root).parts
    # The user may have granted a folder through a link (~/Docs -> /data/docs); compare with
    # the link's target only for the granted part, never for anything below it.
    for root in roots:
        for parent in (given, *given.parents):
            if real_root(parent) == root:
                return root, given.relative_to(parent).parts
    shown = ", ".join(str(r) for r in roots) or "none yet"
    raise PathRefused(f"{given}: outside the folders you granted Hearth ({shown})")
