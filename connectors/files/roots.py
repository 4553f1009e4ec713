"""Granted folders, and the one check every path from the model goes through.

A path is accepted only in its plain absolute form and only below a granted folder. Relative
paths, `..`, `~`, Windows drive, UNC and alternate-data-stream forms are refused outright, as are
hidden files and folders (names starting with '.'), which Hearth never sees. `locate` gives the
grant and the names below it; `fsops` then walks those names from the grant's pinned folder
without following a link, so the check and the use are the same walk.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from hearth.connectors.files.errors import FilesError, GrantReplaced, PathMalformed, PathRefused
from hearth.connectors.files.fsops import (
    Grant,
    Spot,
    folder_of,
    parent_of,
    pin,
    refuse_hard_links,
    stat_at,
)
from hearth.connectors.files.names import shown, spoofing_characters, unshown

__all__ = [
    "FilesError",
    "GrantReplaced",
    "PathRefused",
    "check_new_name",
    "locate",
    "real_root",
    "resolve_inside",
]

_DRIVE = re.compile(r"^[A-Za-z]:")
_HINT = "Use a full path exactly as files.list or files.search show it."
# What is wrong with a path's form, in plain words after the path itself.
_EMPTY = "The path is empty; full paths start with /"
_NUL = "contains a NUL character, which no path can hold"
_WINDOWS = "is a Windows-style path; full paths here start with / and use / between folders"
_TILDE = "starts with ~; write the full path instead, starting with /"
_RELATIVE = "is not a full path; full paths start with /"
_DOTS = "contains '.' or '..'; write the path without them"
_HIDDEN = "names a hidden file or folder (starting with '.'), which Hearth never sees"
_STREAM = "uses the 'name:stream' form, which is refused"


def real_root(folder: Path) -> Path:
    return Path(os.path.realpath(folder))


def locate(raw: str, grants: Sequence[Grant]) -> Spot:
    """The grant `raw` lies in and the names below it; nothing on disk is trusted yet.

    `raw` may carry the escapes paths are shown with (`\\u202e`); they name the same file.
    """
    text = unshown(raw)
    _check_form(text, raw)
    return _split_at_root(Path(text), grants)


def resolve_inside(raw: str, roots: Sequence[Path], *, must_exist: bool = True) -> Path:
    """The path `raw` names, checked to lie inside one of `roots` (pinned as they are now).

    With `must_exist=False` only the parent must exist: the path is a destination. A check
    only: tools act through `locate` and `fsops`, which hold what they checked.
    """
    spot = locate(raw, [pin(root) for root in roots])
    if spot.is_root:
        with folder_of(spot):
            return spot.path
    with parent_of(spot) as folder:
        found = stat_at(folder, spot.name)
    if found is not None and stat.S_ISLNK(found.st_mode):
        raise PathRefused(f"{shown(raw)}: is a symbolic link, which Hearth never follows")
    if found is not None:
        refuse_hard_links(spot.path, found)
    if found is None and must_exist:
        raise PathRefused(f"{shown(raw)}: no such file or folder. {_HINT}")
    if found is None and ":" in spot.name:
        # On POSIX an existing name may hold a ':'; a new one is the alternate-data-stream form.
        raise PathRefused(f"{shown(raw)}: 'name:stream' (alternate data stream) forms are refused")
    return spot.path


def check_new_name(name: str) -> str:
    """A single file or folder name for a rename or a new entry."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise PathRefused(f"{shown(name)!r} is not a plain file name (no folders, no '/', no '..')")
    refuse_spoofing(name)
    if name.startswith("."):
        raise PathRefused(f"{name!r}: hidden names (starting with '.') are not allowed")
    if ":" in name or _DRIVE.match(name):
        raise PathRefused(f"{name!r}: ':' is not allowed in names Hearth creates")
    return name


def refuse_spoofing(name: str) -> None:
    """Refuse a name that could show as something else: control, invisible or bidi characters."""
    found = spoofing_characters(name)
    if found:
        raise PathRefused(
            f"{shown(name)!r} contains control, invisible or direction characters ({found}) "
            "that could make it look like another name; choose a plain name"
        )


def _check_form(text: str, raw: str) -> None:
    """Refuse a path not written as a plain full path; the words say so to the user."""
    value = f"'{shown(raw)}'"
    if not text:
        raise PathMalformed(f"the path is empty. {_HINT}", words=_EMPTY)
    if "\x00" in text:
        raise PathMalformed("the path contains a NUL character", words=f"{value} {_NUL}")
    if "\\" in text or text.startswith("//") or _DRIVE.match(text):
        raise PathMalformed(
            f"{shown(raw)}: Windows drive, UNC and backslash forms are refused. {_HINT}",
            words=f"{value} {_WINDOWS}",
        )
    if text.startswith("~"):
        message = f"{shown(raw)}: '~' is not expanded. {_HINT}"
        raise PathMalformed(message, words=f"{value} {_TILDE}")
    if not text.startswith("/"):
        message = f"{shown(raw)}: relative paths are refused. {_HINT}"
        raise PathMalformed(message, words=f"{value} {_RELATIVE}")
    parts = text.split("/")[1:]
    if any(part in (".", "..") for part in parts):
        message = f"{shown(raw)}: '.' and '..' are refused. {_HINT}"
        raise PathMalformed(message, words=f"{value} {_DOTS}")
    if any(part.startswith(".") for part in parts):
        message = f"{shown(raw)}: hidden files and folders are not visible to Hearth"
        raise PathMalformed(message, words=f"{value} {_HIDDEN}")
    if sys.platform == "win32" and any(":" in part for part in parts):
        message = f"{shown(raw)}: 'name:stream' (alternate data stream) forms are refused"
        raise PathMalformed(message, words=f"{value} {_STREAM}")


def _split_at_root(given: Path, grants: Sequence[Grant]) -> Spot:
    """The grant `given` starts with, and the components below it."""
    for grant in sorted(grants, key=lambda g: len(g.path.parts), reverse=True):
        if given == grant.path or given.is_relative_to(grant.path):
            return Spot(grant, given.relative_to(grant.path).parts)
    # The user may have granted a folder through a link (~/Docs -> /data/docs); compare with
    # the link's target only for the granted part, never for anything below it. The walk from
    # the grant's pinned folder then decides whether it is still the folder granted.
    for grant in grants:
        for parent in (given, *given.parents):
            if real_root(parent) == grant.path:
                return Spot(grant, given.relative_to(parent).parts)
    shown_grants = ", ".join(shown(str(g.path)) for g in grants) or "none yet"
    raise PathRefused(
        f"{shown(str(given))}: outside the folders you granted Hearth ({shown_grants})"
    )
