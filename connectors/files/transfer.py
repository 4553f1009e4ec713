"""Moving one entry between held folders, on one filesystem or across two.

On one filesystem a move is a rename that never replaces. Across filesystems the entry is copied
under a temporary hidden name in the destination (by descriptors, each file synced), renamed into
place without replacing, and only then is the source removed, after checking it is still the
entry that was copied; it is renamed to a temporary name first, so a kill while removing it
leaves no half original. Any failure before that removes the temporary copy and leaves the
source. A process killed meanwhile leaves its temporary entries, and `leftovers` sweeps them
later: the name carries the process id, so a sweep never takes one a running Hearth still uses.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
import uuid

from hearth.connectors.files.errors import FilesError, PathRefused
from hearth.connectors.files.fsops import FOLDER, hard_links, open_at, rename_no_replace, stat_at
from hearth.connectors.files.names import shown

_CHUNK = 1 << 20
_TEMPORARY = re.compile(r"\.hearth-([0-9]{1,10})-[0-9a-f]{12}\.tmp")


def move_entry(folder: int, name: str, target_folder: int, target: str) -> None:
    """Move `name` in `folder` to `target` in `target_folder`; FileExistsError if it is taken."""
    try:
        rename_no_replace(folder, name, target_folder, target)
    except OSError as error:
        if error.errno != errno.EXDEV:
            raise
        _move_across(folder, name, target_folder, target)


def temporary_name() -> str:
    """A hidden name (Hearth never shows or indexes it) for an entry not yet in place."""
    return f".hearth-{os.getpid()}-{uuid.uuid4().hex[:12]}.tmp"


def temporary_owner(name: str) -> int | None:
    """The id of the process that made `name` with `temporary_name`; None for any other name."""
    found = _TEMPORARY.fullmatch(name)
    return int(found.group(1)) if found else None


def remove_entry(folder: int, name: str) -> None:
    """Delete `name` in `folder`, a whole folder included, never following a link."""
    found = stat_at(folder, name)
    if found is not None and stat.S_ISDIR(found.st_mode):
        shutil.rmtree(name, dir_fd=folder)  # descriptor-based on Linux: links are not followed
    elif found is not None:
        os.unlink(name, dir_fd=folder)


def _move_across(folder: int, name: str, target_folder: int, target: str) -> None:
    if stat_at(target_folder, target) is not None:
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), target)
    source = stat_at(folder, name)
    if source is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
    temporary = temporary_name()
    try:
        _copy(folder, name, target_folder, temporary)
        os.fsync(target_folder)
        rename_no_replace(target_folder, temporary, target_folder, target)
    except BaseException:
        with contextlib.suppress(OSError):
            remove_entry(target_folder, temporary)
        raise
    _remove_original(folder, name, source)


def _remove_original(folder: int, name: str, source: os.stat_result) -> None:
    """Remove the original of a finished copy, if it is still the entry that was copied.

    It is first renamed to a temporary name, so a process killed while removing a large folder
    leaves a leftover to sweep, not half an original beside its whole copy.
    """
    changed = FilesError(
        f"{name} was copied to the other drive, but the original changed meanwhile, "
        "so it was left in place too"
    )
    if not _same(stat_at(folder, name), source):
        raise changed
    doomed = temporary_name()
    rename_no_replace(folder, name, folder, doomed)
    if not _same(stat_at(folder, doomed), source):
        rename_no_replace(folder, doomed, folder, name)  # swapped meanwhile: put it back
        raise changed
    remove_entry(folder, doomed)


def _same(found: os.stat_result | None, source: os.stat_result) -> bool:
    return found is not None and (found.st_dev, found.st_ino) == (source.st_dev, source.st_ino)


def _copy(folder: int, name: str, target_folder: int, target: str) -> None:
    found = stat_at(folder, name)
    if found is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
    if stat.S_ISLNK(found.st_mode):
        # A link is copied as a link; Hearth never follows it either way.
        os.symlink(os.readlink(name, dir_fd=folder), target, dir_fd=target_folder)
    elif stat.S_ISDIR(found.st_mode):
        _copy_folder(folder, name, target_folder, target, found)
    elif stat.S_ISREG(found.st_mode):
        _copy_file(folder, name, target_folder, target, found)
    else:
        raise FilesError(f"{name} is not a file or folder (a device, pipe or socket); not moved")


def _copy_file(
    folder: int, name: str, target_folder: int, target: str, found: os.stat_result
) -> None:
    source = open_at(folder, name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        # A copy has one name: copying a file with others would let its text in under it.
        linked = hard_links(os.fstat(source))
        if linked is not None:
            raise PathRefused(f"{shown(name)} is {linked}; not moved")
        copy = open_at(target_folder, target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            while chunk := os.read(source, _CHUNK):
                _write_all(copy, chunk)
            os.fchmod(copy, stat.S_IMODE(found.st_mode))
            os.utime(copy, ns=(found.st_atime_ns, found.st_mtime_ns))
            os.fsync(copy)
        finally:
            os.close(copy)
    finally:
        os.close(source)


def _copy_folder(
    folder: int, name: str, target_folder: int, target: str, found: os.stat_result
) -> None:
    os.mkdir(target, 0o700, dir_fd=target_folder)
    source = os.open(name, FOLDER, dir_fd=folder)
    try:
        copy = os.open(target, FOLDER, dir_fd=target_folder)
        try:
            with os.scandir(source) as entries:
                names = [entry.name for entry in entries]
            for entry in names:
                _copy(source, entry, copy, entry)
            os.fchmod(copy, stat.S_IMODE(found.st_mode))
            os.utime(copy, ns=(found.st_atime_ns, found.st_mtime_ns))
            os.fsync(copy)
        finally:
            os.close(copy)
    finally:
        os.close(source)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
