"""Who wrote an open call: a lock file that the OS lets go of when its process dies.

A database handle that records calls claims an owner: `<data>/locks/<pid>-<token>.lock`, kept
open and locked for the handle's life, its id written beside each intent, proposed audit row and
running undo entry. However the process ends (SIGKILL included), the OS drops the lock, so
startup recovery tells a dead owner's open calls from a live one's by trying to take it: the
desktop window and `hearth ask` can share one data folder. The lock belongs to one open file
(flock on POSIX, msvcrt.locking on Windows), so two handles in one process also see each other.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import sys
from pathlib import Path

LOCKS_FOLDER = "locks"
_SUFFIX = ".lock"
_OWNER_ID = re.compile(r"\d+-[0-9a-f]{12}")
_CLAIM_TRIES = 5


def lock_folder(database: Path) -> Path:
    """Where the owners of the database at `database` keep their lock files."""
    return database.parent / LOCKS_FOLDER


class Owner:
    """A held lock file; rows record `id`. `release()` lets go, as the process's death does."""

    def __init__(self, path: Path, descriptor: int) -> None:
        self.path = path
        self.id = path.name.removesuffix(_SUFFIX)
        self._descriptor: int | None = descriptor

    @classmethod
    def claim(cls, folder: Path) -> Owner:
        """Create and lock a lock file of this process's own in `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        for _ in range(_CLAIM_TRIES):
            path = folder / f"{os.getpid()}-{secrets.token_hex(6)}{_SUFFIX}"
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            # A sweep may take and delete the new file before it is locked; only a file still in
            # place under its name, locked by us, names a live owner.
            if _try_lock(descriptor):
                if _still_named(descriptor, path):
                    return cls(path, descriptor)
                _unlock_and_close(descriptor)
            else:
                os.close(descriptor)
        raise OSError(f"could not hold a lock file in {folder}")

    @property
    def held(self) -> bool:
        return self._descriptor is not None

    def release(self) -> None:
        """Unlock and remove the lock file; the calls it owned count as interrupted from now."""
        if self._descriptor is None:
            return
        descriptor, self._descriptor = self._descriptor, None
        # Deleted before it is unlocked where the OS allows it, so no one sees a free lock
        # under this name; Windows cannot delete an open file, so it goes after closing there.
        if sys.platform != "win32":
            self.path.unlink(missing_ok=True)
        _unlock_and_close(descriptor)
        if sys.platform == "win32":
            _remove(self.path)

    def __repr__(self) -> str:
        return f"Owner({self.id!r}, held={self.held})"


def is_alive(folder: Path, owner_id: str) -> bool:
    """Whether the owner `owner_id` still holds its lock, i.e. its process is running."""
    if not _OWNER_ID.fullmatch(owner_id):
        return False  # not an id Hearth makes, so no process of Hearth's holds it
    try:
        descriptor = os.open(folder / f"{owner_id}{_SUFFIX}", os.O_RDWR)
    except FileNotFoundError:
        return False  # released, or swept after its process died
    if _try_lock(descriptor):
        _unlock_and_close(descriptor)
        return False
    os.close(descriptor)
    return True


def sweep(folder: Path) -> list[str]:
    """Remove the lock files of owners that are gone; the ids of those removed."""
    if not folder.is_dir():
        return []
    removed = []
    for path in sorted(folder.glob(f"*{_SUFFIX}")):
        try:
            descriptor = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            continue  # its owner released it meanwhile
        if not _try_lock(descriptor):
            os.close(descriptor)
            continue
        if sys.platform != "win32":
            path.unlink(missing_ok=True)  # while locked, so a claim in progress notices
        _unlock_and_close(descriptor)
        if sys.platform == "win32":
            _remove(path)
        removed.append(path.name.removesuffix(_SUFFIX))
    return removed


def _try_lock(descriptor: int) -> bool:
    """Take the file's lock without waiting; False when another open file holds it."""
    if sys.platform == "win32":
        import msvcrt

        try:
            # One byte at offset 0 (past the end of the empty file, which Windows allows).
            msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock_and_close(descriptor: int) -> None:
    # Closing drops a flock; Windows asks for an explicit unlock before the handle closes.
    if sys.platform == "win32":
        import msvcrt

        with contextlib.suppress(OSError):
            msvcrt.locking(descriptor, msvcrt.LK_UNLCK, 1)
    os.close(descriptor)


def _still_named(descriptor: int, path: Path) -> bool:
    try:
        named = path.stat()
    except FileNotFoundError:
        return False
    opened = os.fstat(descriptor)
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def _remove(path: Path) -> None:
    # On Windows a file another process has open cannot be deleted: it is someone's claim.
    with contextlib.suppress(PermissionError):
        path.unlink(missing_ok=True)
