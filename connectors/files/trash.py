"""Trash through the OS (send2trash), and find the trashed item again so undo can restore it.

Restoring is only possible where the trash follows the freedesktop.org layout (Linux and
other Unix desktops). Elsewhere undo says where to restore the item by hand.
"""

from __future__ import annotations

import configparser
import os
import shutil
import sys
from pathlib import Path
from urllib.parse import unquote

from hearth import UndoFailed
from hearth.connectors.files.results import TrashedItem

INFO_SUFFIX = ".trashinfo"


def move_to_trash(path: Path) -> TrashedItem:
    """Send `path` to the OS trash (never a hard delete) and note where it landed."""
    # Imported here: send2trash reads XDG_DATA_HOME when it is first imported.
    from send2trash import send2trash

    before = _info_files(path)
    send2trash(str(path))
    new = sorted(_info_files(path) - before, key=lambda p: p.stat().st_mtime)
    for info in reversed(new):
        if _recorded_path(info) == path:
            trash_file = info.parent.parent / "files" / info.name.removesuffix(INFO_SUFFIX)
            return TrashedItem(original=str(path), trash_file=str(trash_file), info_file=str(info))
    return TrashedItem(original=str(path), trash_file=None, info_file=None)


def restore(item: TrashedItem) -> str:
    """Put a trashed item back where it was; refuses to replace anything now there."""
    original = Path(item.original)
    if item.trash_file is None or item.info_file is None:
        where = "the Recycle Bin" if sys.platform == "win32" else "the Trash"
        raise UndoFailed(f"restore {original.name} from {where} by hand; Hearth cannot here")
    trash_file = Path(item.trash_file)
    if not os.path.lexists(trash_file):
        raise UndoFailed(f"{original.name} is no longer in the trash (was it emptied?)")
    if os.path.lexists(original):
        raise UndoFailed(f"something new is at {original}; nothing was replaced")
    if not original.parent.is_dir():
        raise UndoFailed(f"the folder {original.parent} no longer exists")
    shutil.move(str(trash_file), str(original))
    Path(item.info_file).unlink(missing_ok=True)
    return f"restored {original}"


def _trash_dirs(path: Path) -> list[Path]:
    from send2trash import plat_other

    dirs = [Path(plat_other.HOMETRASH)]
    mount = Path(os.fsdecode(plat_other.find_mount_point(os.fsencode(path.parent))))
    uid = str(os.getuid())
    dirs += [mount / ".Trash" / uid, mount / f".Trash-{uid}"]
    return dirs


def _info_files(path: Path) -> set[Path]:
    if sys.platform in ("win32", "darwin"):
        return set()
    stem = path.stem if path.suffix else path.name
    found: set[Path] = set()
    for trash in _trash_dirs(path):
        info = trash / "info"
        if info.is_dir():
            found.update(info.glob(f"{_glob_escape(stem)}*{INFO_SUFFIX}"))
    return found


def _recorded_path(info: Path) -> Path | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(info, encoding="utf-8")
        recorded = unquote(parser["Trash Info"]["Path"])
    except (configparser.Error, KeyError, OSError):
        return None
    if Path(recorded).is_absolute():
        return Path(recorded)
    # Relative paths are relative to the volume's top directory, which holds the trash.
    top = info.parent.parent.parent
    top = top.parent if top.name == ".Trash" else top
    return Path(os.path.normpath(top / recorded))


def _glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in text)
