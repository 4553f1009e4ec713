"""The file tools that make things: create a folder and write text, each with its undo.

Both create through a folder descriptor reached without following a link, with O_EXCL and
O_NOFOLLOW, so nothing that appears meanwhile is written over or through. Replacing an existing
file happens only when the user allows it, and keeps the old text so undo can put it back.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hearth import UndoFailed, data_dir, tool
from hearth.connectors.files.errors import FilesError
from hearth.connectors.files.fsops import Spot, open_at, open_file, parent_of, refusal, stat_at
from hearth.connectors.files.library import FileLibrary
from hearth.connectors.files.names import shown, unshown
from hearth.connectors.files.previews import preview_create_folder, preview_write
from hearth.connectors.files.results import Created, Written
from hearth.connectors.files.roots import check_new_name, locate
from hearth.connectors.files.transfer import temporary_name
from hearth.connectors.files.trash import move_to_trash

WRITE_LIMIT = 1_000_000
READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)


class CreatingTools:
    """The files connector's tools that create files and folders, each with its undo."""

    library: FileLibrary

    @tool(
        effect="write",
        scope="path",
        preview=preview_create_folder,
        keywords=("create", "new", "make", "mkdir"),
        undo="remove_created_folder",
        check="check_new_path",
    )
    def create_folder(self, path: str) -> Created:
        """Create a new, empty folder.

        Args:
            path: Full path of the folder to create; its parent must exist.
        """
        target = locate(path, self.library.grants())
        with parent_of(target) as folder:
            check_new_name(target.name)
            try:
                os.mkdir(target.name, 0o777, dir_fd=folder)
            except OSError as error:
                raise refusal(target.path, error, folder) from None
        self.library.refresh({target.path})
        return Created(created=shown(str(target.path)))

    def remove_created_folder(self, arguments: Mapping[str, Any], result: Created) -> str:
        """Remove the folder again, but only while it is still empty."""
        try:
            target = locate(result.created, self.library.grants())
            with parent_of(target) as folder:
                os.rmdir(target.name, dir_fd=folder)  # fails on a folder with anything in it
        except FilesError as error:
            raise UndoFailed(str(error)) from None
        except OSError as error:
            reason = str(refusal(target.path, error))
            if error.errno in (errno.ENOTEMPTY, errno.EEXIST):
                reason = f"{result.created} is not empty any more; it was left in place"
            raise UndoFailed(reason) from None
        self.library.refresh({target.path})
        return f"removed the empty folder {result.created}"

    @tool(
        effect="write",
        scope="path",
        preview=preview_write,
        keywords=("write", "save", "create", "note"),
        undo="unwrite",
        check="check_new_path",
    )
    def write_text(self, path: str, text: str, overwrite: bool = False) -> Written:
        """Write text to a new file.

        Args:
            path: Full path of the file to write.
            text: The text to write.
            overwrite: Replace the file if it exists (only if the user allows overwriting).
        """
        target = locate(path, self.library.grants())
        if len(text) > WRITE_LIMIT:
            raise FilesError(f"the text is over {WRITE_LIMIT} characters")
        data = text.encode("utf-8")
        with parent_of(target) as folder:
            check_new_name(target.name)
            backup = self._backup_for_overwrite(folder, target, overwrite)
            try:
                _write(folder, target.name, data, replace=backup is not None)
            except OSError as error:
                raise refusal(target.path, error, folder) from None
        self.library.refresh({target.path})
        digest = hashlib.sha256(data).hexdigest()
        shown_backup = None if backup is None else shown(str(backup))
        return Written(written=shown(str(target.path)), sha256=digest, backup=shown_backup)

    def unwrite(self, arguments: Mapping[str, Any], result: Written) -> str:
        """Put the replaced text back, or trash the new file, unless it changed since."""
        try:
            target = locate(result.written, self.library.grants())
            with parent_of(target) as folder:
                if _digest(folder, target) != result.sha256:
                    raise UndoFailed(
                        f"{result.written} was changed since Hearth wrote it; it was left as it is"
                    )
                if result.backup:
                    backup = Path(unshown(result.backup))
                    _write(folder, target.name, backup.read_bytes(), replace=True)
                    backup.unlink()
                    summary = f"put back the previous text of {result.written}"
                else:
                    item = move_to_trash(folder, target)
                    summary = f"moved {result.written} to the trash ({item.trash_file})"
        except FilesError as error:
            raise UndoFailed(str(error)) from None
        except OSError as error:
            raise UndoFailed(f"could not undo the write of {result.written}: {error}") from None
        self.library.refresh({target.path})
        return summary

    def _backup_for_overwrite(self, folder: int, target: Spot, overwrite: bool) -> Path | None:
        found = stat_at(folder, target.name)
        where = shown(str(target.path))
        if found is None:
            return None
        if not overwrite:
            raise FilesError(f"{where} already exists; nothing was written")
        if not self.library.settings().allow_overwrite:
            raise FilesError(
                f"{where} already exists, and replacing files is turned off in the files "
                "connector's settings; nothing was written"
            )
        if not stat.S_ISREG(found.st_mode):
            raise FilesError(f"{where} is not a file")
        backups = data_dir() / "files-undo"
        backup = backups / f"{uuid.uuid4().hex}-{target.name}"
        old_text = _read(folder, target)
        try:
            backups.mkdir(parents=True, exist_ok=True)
            backup.write_bytes(old_text)
            os.utime(backup, ns=(found.st_atime_ns, found.st_mtime_ns))
        except OSError as error:
            raise FilesError(
                f"could not keep the old text of {where} for undo ({error.strerror}); "
                "nothing was written"
            ) from None
        return backup


def _write(folder: int, name: str, data: bytes, *, replace: bool) -> None:
    """Create `name` with `data`; with `replace`, via a temporary file renamed over it."""
    # O_EXCL and O_NOFOLLOW: never write through a link or onto a file that appeared meanwhile.
    created = temporary_name() if replace else name
    descriptor = open_at(folder, created, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view) :]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        if replace:
            # Replacing is what the user allowed here; the old text is in the backup.
            os.rename(created, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        if replace:
            with contextlib.suppress(OSError):
                os.unlink(created, dir_fd=folder)
        raise


def _read(folder: int, spot: Spot) -> bytes:
    # A file with other names is refused: its old text, kept for undo, could come from outside.
    descriptor = open_file(folder, spot, READ)
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise FilesError(f"{shown(str(spot.path))} is not a file")
        return file.read()


def _digest(folder: int, spot: Spot) -> str:
    if stat_at(folder, spot.name) is None:
        raise UndoFailed(f"{shown(str(spot.path))} is no longer there")
    return hashlib.sha256(_read(folder, spot)).hexdigest()
