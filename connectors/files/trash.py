"""The freedesktop.org trash, reached through the same checked folder descriptors as every write.

An item is trashed by writing its .trashinfo record (O_EXCL, so no record is ever overwritten) and
then moving the item from its held folder into the trash's files/ folder without replacing
anything, so its path is never walked again. As send2trash did: the home trash
($XDG_DATA_HOME/Trash) for items on the home filesystem, otherwise the drive's own trash
($topdir/.Trash/$uid when the administrator made a sticky .Trash, else $topdir/.Trash-$uid), and
the home trash, by copying, when the drive has none. Restoring moves the item back into a folder
checked like any other write: inside a grant, reached without following a link, never replacing.

An item's name in the trash is chosen and journaled before its record is claimed and it moves,
so a trash stopped by a crash can still be undone. Restoring leaves alone an item that never
reached the trash, and takes back only an item whose record still names where it came from.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote_to_bytes

from hearth import UndoFailed
from hearth.connectors.files.errors import FilesError
from hearth.connectors.files.fsops import (
    FOLDER,
    Grant,
    Spot,
    open_at,
    parent_of,
    refuse_hard_links,
    stat_at,
)
from hearth.connectors.files.names import shown, unshown
from hearth.connectors.files.results import TrashedItem
from hearth.connectors.files.roots import locate
from hearth.connectors.files.transfer import move_entry

INFO_SUFFIX = ".trashinfo"
_NAMES_TRIED = 1000
_RECORD_LIMIT = 1 << 16
Journal = Callable[[str, Mapping[str, Any]], None]
"""Where each item goes before it moves: `hearth.journal_step` in the trash tool."""


@dataclass(frozen=True)
class _Can:
    """One trash folder: where it is, and the top its relative paths start from (None: home)."""

    folder: Path
    top: Path | None


def move_to_trash(folder: int, spot: Spot, journal: Journal | None = None) -> TrashedItem:
    """Move `spot` (in its held parent `folder`) into the trash; never a hard delete.

    `journal` gets the item under "trashed" once its place in the trash is claimed and before
    it moves, and again under "not_trashed" if that move then fails.
    """
    if sys.platform in ("darwin", "win32"):
        raise FilesError(
            "Hearth can move items to the trash only on Linux and other freedesktop.org "
            "desktops; nothing was deleted"
        )
    found = stat_at(folder, spot.name)
    if found is None:
        raise FilesError(f"{shown(str(spot.path))}: no such file or folder")
    refuse_hard_links(spot.path, found)
    try:
        can = _can_for(spot.path, found.st_dev)
        with _opened(can.folder / "files") as files, _opened(can.folder / "info") as info:
            return _place(folder, spot, can, (files, info), journal)
    except OSError as error:
        raise FilesError(
            f"could not move {shown(str(spot.path))} to the trash: {_reason(error)}; "
            "nothing was deleted"
        ) from None


def _place(
    folder: int, spot: Spot, can: _Can, held: tuple[int, int], journal: Journal | None
) -> TrashedItem:
    """Choose a free name in the trash, journal it, claim it with its record, move the item in."""
    files, info = held
    text = _record(spot.path, can.top)
    for name in _candidates(spot.name):
        record = name + INFO_SUFFIX
        if stat_at(files, name) is not None or stat_at(info, record) is not None:
            continue
        item = TrashedItem(
            original=shown(str(spot.path)),
            trash_file=shown(str(can.folder / "files" / name)),
            info_file=shown(str(can.folder / "info" / record)),
        )
        _journal(journal, "trashed", item)
        if not _claim(info, record, text):
            _journal(journal, "not_trashed", item)
            continue
        try:
            move_entry(folder, spot.name, files, name)
        except Exception as error:
            os.unlink(record, dir_fd=info)
            _journal(journal, "not_trashed", item)
            if isinstance(error, FileExistsError):
                continue
            raise
        except BaseException:
            os.unlink(record, dir_fd=info)
            raise
        return item
    raise FilesError(f"the trash has no free name for {shown(spot.name)}; nothing was deleted")


def _journal(journal: Journal | None, key: str, item: TrashedItem) -> None:
    if journal is not None:
        journal(key, item.model_dump())


def restore(item: TrashedItem, grants: Sequence[Grant], *, check_only: bool = False) -> bool:
    """Put a trashed item back where it was; refuses anything a write would refuse.

    False when it never reached the trash (it is still where it was): it is left alone, and
    only the record claimed for it is removed. With `check_only`, says the same and raises the
    same UndoFailed, changing nothing.
    """
    original = Path(unshown(item.original))
    if item.trash_file is None or item.info_file is None:
        where = "the Recycle Bin" if sys.platform == "win32" else "the Trash"
        raise UndoFailed(f"restore {shown(original.name)} from {where} by hand; Hearth cannot here")
    trashed, record = Path(unshown(item.trash_file)), Path(unshown(item.info_file))
    try:
        spot = locate(item.original, grants)
        with (
            _opened(trashed.parent) as files,
            _opened(record.parent) as info,
            parent_of(spot) as folder,
        ):
            ours = _names(info, record.name, original)
            if not _in_trash(files, trashed.name, folder, spot, ours):
                if ours and not check_only:
                    os.unlink(record.name, dir_fd=info)  # claimed, but the item never came
                return False
            if not check_only:
                move_entry(files, trashed.name, folder, spot.name)
                with contextlib.suppress(OSError):
                    os.unlink(record.name, dir_fd=info)
    except FileExistsError:
        raise UndoFailed(f"something new is at {item.original}; nothing was replaced") from None
    except (FilesError, OSError) as error:
        raise UndoFailed(f"could not restore {item.original}: {_reason(error)}") from None
    return True


def _in_trash(files: int, name: str, folder: int, spot: Spot, ours: bool) -> bool:
    """Whether the item waits in the trash, to go back; False if it never left. Refuses the rest.

    `ours`: its record is still there, naming where it came from. Without it, an entry under
    its name in the trash is another's, which took a name the item was about to take.
    """
    in_trash = stat_at(files, name) is not None
    where = shown(str(spot.path))
    if stat_at(folder, spot.name) is not None:
        if in_trash and ours:
            raise UndoFailed(f"something new is at {where}; nothing was replaced")
        return False
    if not in_trash:
        raise UndoFailed(f"{shown(spot.name)} is no longer in the trash (was it emptied?)")
    if not ours:
        raise UndoFailed(
            f"what is in the trash as {shown(name)} is not what Hearth put there from {where} "
            "(its record is gone or names another place); restore it by hand"
        )
    return True


def _names(info: int, record: str, original: Path) -> bool:
    """Whether the .trashinfo `record` in `info` says its item came from `original`."""
    try:
        descriptor = open_at(info, record, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return False
        lines = file.read(_RECORD_LIMIT).splitlines()
    for line in lines:
        if line.startswith(b"Path="):
            path = os.fsdecode(unquote_to_bytes(line[5:].strip().decode("ascii", "replace")))
            relative = not path.startswith("/")  # to the top of the drive that holds the trash
            return path == str(original) or (relative and str(original).endswith(f"/{path}"))
    return False


def _can_for(path: Path, device: int) -> _Can:
    data = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    home = _can(data / "Trash", None)
    if _device(data if data.exists() else Path.home()) == device:
        return home
    top = _mount_point(path, device)
    shared = top / ".Trash"
    info = _lstat(shared)
    if info is not None and stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX:
        with contextlib.suppress(OSError):
            return _can(shared / str(os.getuid()), top)
    with contextlib.suppress(OSError):
        return _can(top / f".Trash-{os.getuid()}", top)
    return home  # the drive has no trash Hearth may use: copied to the home trash instead


def _can(folder: Path, top: Path | None) -> _Can:
    for part in ("files", "info"):
        (folder / part).mkdir(0o700, parents=True, exist_ok=True)
    return _Can(folder, top)


@contextlib.contextmanager
def _opened(folder: Path) -> Iterator[int]:
    descriptor = os.open(folder, FOLDER)
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def _candidates(name: str) -> Iterator[str]:
    yield name
    stem, dot, suffix = name.rpartition(".")
    stem, suffix = (stem, dot + suffix) if stem else (name, "")
    for counter in range(2, _NAMES_TRIED):
        yield f"{stem} {counter}{suffix}"


def _claim(info: int, record: str, text: str) -> bool:
    """Create the record, never over another; False if that name is taken."""
    try:
        descriptor = open_at(info, record, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    try:
        os.write(descriptor, text.encode("utf-8"))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return True


def _record(path: Path, top: Path | None) -> str:
    recorded = path.relative_to(top) if top is not None and path.is_relative_to(top) else path
    when = datetime.now().strftime("%Y-%m-%dT%H:%M:%S")
    return f"[Trash Info]\nPath={quote(os.fsencode(str(recorded)))}\nDeletionDate={when}\n"


def _mount_point(path: Path, device: int) -> Path:
    top = path.parent
    while top != top.parent and _device(top.parent) == device:
        top = top.parent
    return top


def _device(path: Path) -> int | None:
    found = _lstat(path)
    return None if found is None else found.st_dev


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _reason(error: BaseException) -> str:
    return (error.strerror if isinstance(error, OSError) else None) or str(error)
