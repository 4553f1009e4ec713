"""File operations at the system-call level, below a granted folder, so no path is walked twice.

Every operation starts from the granted folder's own directory descriptor, opened without
following a link and checked against the device and inode pinned when it was granted, and goes
down one name at a time with O_NOFOLLOW. Entries are then opened, created, renamed and removed
relative to a held folder descriptor. A process that swaps a folder for a link meanwhile can make
a call fail; it cannot make it reach outside the grant. A rename never replaces what is at its
target: renameat2 RENAME_NOREPLACE on Linux, renameatx_np RENAME_EXCL on macOS, and a hard link
then unlink elsewhere (files only).

A file with more than one name (hard link) is refused like a link: pinning by device and inode
cannot see one, and its other name may be outside the grants (a tar or zip unpacked into a
granted folder can make one). What is read or copied is checked on the opened descriptor.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hearth.connectors.files.errors import FilesError, GrantReplaced, PathRefused
from hearth.connectors.files.names import shown

O_NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
O_DIRECTORY: int = getattr(os, "O_DIRECTORY", 0)
O_CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)
FOLDER = os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
_AT_CALLS = {os.open, os.stat, os.mkdir, os.rename, os.unlink, os.rmdir, os.link}
SUPPORTED = bool(O_NOFOLLOW and O_DIRECTORY) and os.supports_dir_fd >= _AT_CALLS
_RENAME_NOREPLACE = 1  # linux/fs.h
_RENAME_EXCL = 4  # macOS sys/stdio.h
HINT = "Use a full path exactly as files.list or files.search show it."
HARD_LINKED = "hard-linked"
"""How the reason starts when a file is refused or skipped for having more than one name."""


@dataclass(frozen=True, slots=True)
class Grant:
    """A granted folder: its path, and the device and inode of the folder the user granted."""

    path: Path
    device: int
    inode: int


@dataclass(frozen=True, slots=True)
class Spot:
    """A place below a grant, named by the components under the granted folder."""

    grant: Grant
    parts: tuple[str, ...]

    @property
    def path(self) -> Path:
        return self.grant.path.joinpath(*self.parts)

    @property
    def name(self) -> str:
        return self.parts[-1] if self.parts else self.grant.path.name

    @property
    def is_root(self) -> bool:
        return not self.parts

    def child(self, name: str) -> Spot:
        return Spot(self.grant, (*self.parts, name))


def pin(path: Path) -> Grant:
    """`path` (a real path) pinned to the folder it names now."""
    descriptor = _open_root_path(path)
    try:
        info = os.fstat(descriptor)
    finally:
        os.close(descriptor)
    return Grant(path, info.st_dev, info.st_ino)


def open_root(grant: Grant) -> int:
    """The granted folder's descriptor, if its path still leads to the folder granted."""
    descriptor = _open_root_path(grant.path)
    info = os.fstat(descriptor)
    if (info.st_dev, info.st_ino) != (grant.device, grant.inode):
        os.close(descriptor)
        raise replaced(grant.path)
    return descriptor


def replaced(path: Path) -> GrantReplaced:
    return GrantReplaced(
        f"the granted folder {shown(str(path))} was replaced since you granted it (it is now "
        "another folder or a link); grant it again if that is intended"
    )


@contextlib.contextmanager
def folder_of(spot: Spot) -> Iterator[int]:
    """The descriptor of the folder `spot` names, reached without following any link."""
    descriptor = _walk(spot, spot.parts)
    try:
        yield descriptor
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def parent_of(spot: Spot) -> Iterator[int]:
    """The descriptor of the folder holding `spot`; `spot` itself is then `spot.name` in it."""
    refuse_root(spot)
    descriptor = _walk(spot, spot.parts[:-1])
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def refuse_root(spot: Spot) -> None:
    """Refuse to act on a granted folder itself: it stays where the user granted it."""
    if spot.is_root:
        raise FilesError(
            f"{shown(str(spot.path))} is a granted folder itself; Hearth never moves, renames, "
            "trashes or replaces a granted folder (revoke it on the Folders page instead)"
        )


def stat_at(folder: int, name: str) -> os.stat_result | None:
    """What `name` is in `folder`, without following a link; None when nothing is there."""
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None


def open_at(folder: int, name: str, flags: int, mode: int = 0o644) -> int:
    """os.open of `name` in `folder`, never through a link."""
    return os.open(name, flags | O_NOFOLLOW | O_CLOEXEC, mode, dir_fd=folder)


def rename_no_replace(folder: int, name: str, target_folder: int, target: str) -> None:
    """Rename `name` in `folder` to `target` in `target_folder`; FileExistsError if it is taken."""
    if sys.platform.startswith("linux") and _libc_call("renameat2") is not None:
        if _rename_call("renameat2", folder, name, target_folder, target, _RENAME_NOREPLACE):
            return
    elif sys.platform == "darwin" and _libc_call("renameatx_np") is not None:
        if _rename_call("renameatx_np", folder, name, target_folder, target, _RENAME_EXCL):
            return
    _link_then_unlink(folder, name, target_folder, target)


def refuse_unsupported() -> None:
    """Refuse plainly where the descriptor calls every write relies on are missing."""
    if not SUPPORTED:
        raise FilesError(
            "this system lacks the file calls Hearth needs to change files safely "
            "(openat with O_NOFOLLOW); nothing was changed"
        )


def _open_root_path(path: Path) -> int:
    refuse_unsupported()
    try:
        return os.open(path, FOLDER)
    except FileNotFoundError:
        raise PathRefused(f"the granted folder {shown(str(path))} no longer exists") from None
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise replaced(path) from None
        raise FilesError(f"cannot open {shown(str(path))}: {error.strerror}") from None


def entry_at(folder: int, spot: Spot) -> os.stat_result:
    """What `spot` is in its held parent `folder`; refuses what is missing, a link, or hard-linked.

    Only a name is acted on after this (renamed, moved, trashed); what is read or copied is
    checked again on its opened descriptor (`open_file`, `transfer`).
    """
    found = stat_at(folder, spot.name)
    if found is None:
        raise PathRefused(f"{shown(str(spot.path))}: no such file or folder. {HINT}")
    if stat.S_ISLNK(found.st_mode):
        raise PathRefused(f"{shown(str(spot.path))} is a symbolic link, which Hearth never follows")
    refuse_hard_links(spot.path, found)
    return found


def hard_links(info: os.stat_result) -> str | None:
    """Why a file with other names is refused; None for a folder or a file with one name."""
    if stat.S_ISDIR(info.st_mode) or info.st_nlink <= 1:
        return None
    return (
        f"{HARD_LINKED}: it has {info.st_nlink} names (hard links), so it may be a file outside "
        "your granted folders under another name; Hearth does not open files with more than one "
        "link, even when all its names are inside granted folders (that cannot be told cheaply)"
    )


def refuse_hard_links(where: Path, info: os.stat_result) -> None:
    """Refuse what `info` describes (at `where`) if it is a file with more than one name."""
    reason = hard_links(info)
    if reason is not None:
        raise PathRefused(f"{shown(str(where))} is {reason}")


def open_file(folder: int, spot: Spot, flags: int) -> int:
    """Open `spot` in its held parent `folder`, never through a link nor with other names.

    The link count is read from the opened descriptor, so it is that of what is then read.
    """
    try:
        descriptor = open_at(folder, spot.name, flags)
    except OSError as error:
        raise refusal(spot.path, error, folder) from None
    try:
        refuse_hard_links(spot.path, os.fstat(descriptor))
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def refusal(where: Path, error: OSError, folder: int | None = None) -> FilesError:
    """An OSError from a call on `where` (in its held parent `folder`), worded for the model."""
    shown_where = shown(str(where))
    if error.errno == errno.ENOENT:
        return PathRefused(f"{shown_where}: no such file or folder. {HINT}")
    if error.errno == errno.EEXIST:
        return FilesError(f"{shown_where} already exists; nothing was replaced")
    found = None
    if folder is not None and error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EISDIR):
        found = stat_at(folder, where.name)
    if found is not None and stat.S_ISLNK(found.st_mode):
        return PathRefused(f"{shown_where} is a symbolic link, which Hearth never follows")
    if found is not None and stat.S_ISREG(found.st_mode) and error.errno == errno.ENOTDIR:
        return PathRefused(f"{shown_where} is a file, not a folder")
    if found is not None and error.errno == errno.ENOTDIR:
        return PathRefused(f"{shown_where} is not a folder")
    return FilesError(f"{shown_where}: {error.strerror or error}")


def _walk(spot: Spot, parts: tuple[str, ...]) -> int:
    current = open_root(spot.grant)
    try:
        for index, part in enumerate(parts):
            try:
                following = os.open(part, FOLDER, dir_fd=current)
            except OSError as error:
                where = spot.grant.path.joinpath(*parts[: index + 1])
                raise refusal(where, error, current) from None
            os.close(current)
            current = following
    except BaseException:
        os.close(current)
        raise
    return current


_CALLS: dict[str, object] = {}


def _libc_call(name: str) -> object | None:
    if name not in _CALLS:
        try:
            _CALLS[name] = getattr(ctypes.CDLL(None, use_errno=True), name)
        except (AttributeError, OSError):
            _CALLS[name] = None
    return _CALLS[name]


def _rename_call(name: str, folder: int, old: str, target_folder: int, new: str, flag: int) -> bool:
    """True when done; False when the filesystem does not know the flag (use the fallback)."""
    call = _CALLS[name]
    assert callable(call)
    done = call(folder, os.fsencode(old), target_folder, os.fsencode(new), ctypes.c_uint(flag))
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP) and stat_at(folder, old) is not None:
        return False
    raise OSError(code, os.strerror(code), new)


def _link_then_unlink(folder: int, name: str, target_folder: int, target: str) -> None:
    """The portable no-replace rename: link() never replaces an existing name.

    A folder cannot be hard-linked, so it is renamed after checking its target is free, in the
    held target folder: rename() then fails on a file or a folder with anything in it, so only
    an empty folder made in that instant could be replaced, and nothing in it is lost.
    """
    found = stat_at(folder, name)
    if found is not None and stat.S_ISDIR(found.st_mode):
        if stat_at(target_folder, target) is not None:
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), target)
        os.rename(name, target, src_dir_fd=folder, dst_dir_fd=target_folder)
        return
    os.link(name, target, src_dir_fd=folder, dst_dir_fd=target_folder, follow_symlinks=False)
    os.unlink(name, dir_fd=folder)
