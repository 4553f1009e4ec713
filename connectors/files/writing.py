"""The file tools that change things: move, rename, create a folder, write text, trash.

Each one checks every path against the granted folders, shows a preview before it runs,
returns what undo needs, and never deletes: trash goes to the OS trash, and undo of a write
puts the old text back or trashes the new file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hearth import UndoFailed, data_dir, tool
from hearth.connectors.files.library import FileLibrary
from hearth.connectors.files.previews import (
    preview_create_folder,
    preview_move,
    preview_rename,
    preview_trash,
    preview_write,
)
from hearth.connectors.files.results import Created, Move, Moved, Trashed, Written
from hearth.connectors.files.roots import FilesError, check_new_name, resolve_inside
from hearth.connectors.files.trash import move_to_trash, restore

WRITE_LIMIT = 1_000_000


class WritingTools:
    """The files connector's tools that change files, each with the method that undoes it."""

    library: FileLibrary

    @tool(
        effect="write",
        scope="sources",
        preview=preview_move,
        keywords=("move", "organise", "organize", "tidy"),
        undo="move_back",
    )
    def move(self, sources: list[str], destination: str) -> Moved:
        """Move files or folders into another folder.

        Args:
            sources: Full paths of the files or folders to move.
            destination: Full path of the folder to move them into.
        """
        roots = self.library.roots()
        target = resolve_inside(destination, roots)
        if not target.is_dir():
            raise FilesError(f"{destination} is not a folder")
        items = [resolve_inside(source, roots) for source in sources]
        if not items:
            raise FilesError("name at least one file to move")
        plan = [(item, target / item.name) for item in items]
        _check_free([new for _, new in plan])
        for item, _ in plan:
            if target.is_relative_to(item):
                raise FilesError(f"cannot move {item} into itself")
        moved: list[Move] = []
        for item, new in plan:
            shutil.move(item, new)
            moved.append({"from": str(item), "to": str(new)})
        self.library.refresh({p for item, new in plan for p in (item, new)})
        return Moved(moved=moved)

    @tool(
        effect="write",
        scope="path",
        preview=preview_rename,
        keywords=("rename", "name"),
        undo="move_back",
    )
    def rename(self, path: str, new_name: str) -> Moved:
        """Rename a file or folder, keeping it in the same folder.

        Args:
            path: Full path of the file or folder.
            new_name: The new name only, without any folder.
        """
        item = resolve_inside(path, self.library.roots())
        new = item.with_name(check_new_name(new_name))
        _check_free([new])
        item.rename(new)
        self.library.refresh({item, new})
        return Moved(moved=[{"from": str(item), "to": str(new)}])

    def move_back(self, arguments: Mapping[str, Any], result: Moved) -> str:
        """Put moved or renamed items back; refuses if something new took their place."""
        pairs = [(Path(m["to"]), Path(m["from"])) for m in reversed(result.moved)]
        roots = self.library.roots()
        for now, before in pairs:
            if not os.path.lexists(now):
                raise UndoFailed(f"{now} is no longer there")
            if os.path.lexists(before):
                raise UndoFailed(f"something new is at {before}; nothing was replaced")
            resolve_inside(str(before.parent), roots)
        for now, before in pairs:
            shutil.move(now, before)
        self.library.refresh({p for pair in pairs for p in pair})
        return f"moved {len(pairs)} item(s) back"

    @tool(
        effect="write",
        scope="path",
        preview=preview_create_folder,
        keywords=("create", "new", "make", "mkdir"),
        undo="remove_created_folder",
    )
    def create_folder(self, path: str) -> Created:
        """Create a new, empty folder.

        Args:
            path: Full path of the folder to create; its parent must exist.
        """
        target = resolve_inside(path, self.library.roots(), must_exist=False)
        check_new_name(target.name)
        _check_free([target])
        target.mkdir()
        self.library.refresh({target})
        return Created(created=str(target))

    def remove_created_folder(self, arguments: Mapping[str, Any], result: Created) -> str:
        """Remove the folder again, but only while it is still empty."""
        folder = Path(result.created)
        if any(folder.iterdir()):
            raise UndoFailed(f"{folder} is not empty any more; it was left in place")
        folder.rmdir()
        self.library.refresh({folder})
        return f"removed the empty folder {folder}"

    @tool(
        effect="write",
        scope="path",
        preview=preview_write,
        keywords=("write", "save", "create", "note"),
        undo="unwrite",
    )
    def write_text(self, path: str, text: str, overwrite: bool = False) -> Written:
        """Write text to a new file.

        Args:
            path: Full path of the file to write.
            text: The text to write.
            overwrite: Replace the file if it exists (only if the user allows overwriting).
        """
        target = resolve_inside(path, self.library.roots(), must_exist=False)
        check_new_name(target.name)
        if len(text) > WRITE_LIMIT:
            raise FilesError(f"the text is over {WRITE_LIMIT} characters")
        backup = _backup_for_overwrite(target, overwrite, self.library)
        _write_new(target, text.encode("utf-8"), replace=backup is not None)
        self.library.refresh({target})
        digest = hashlib.sha256(target.read_bytes()).hexdigest()
        return Written(written=str(target), sha256=digest, backup=backup)

    def unwrite(self, arguments: Mapping[str, Any], result: Written) -> str:
        """Put the replaced text back, or trash the new file, unless it changed since."""
        target = Path(result.written)
        if not target.is_file():
            raise UndoFailed(f"{target} is no longer there")
        if hashlib.sha256(target.read_bytes()).hexdigest() != result.sha256:
            raise UndoFailed(f"{target} was changed since Hearth wrote it; it was left as it is")
        if result.backup:
            Path(result.backup).replace(target)
            summary = f"put back the previous text of {target}"
        else:
            restore_point = move_to_trash(target)
            summary = f"moved {target} to the trash ({restore_point.trash_file or 'OS trash'})"
        self.library.refresh({target})
        return summary

    @tool(
        effect="write",
        scope="paths",
        preview=preview_trash,
        keywords=("delete", "remove", "trash", "bin"),
        undo="restore_trashed",
    )
    def trash(self, paths: list[str]) -> Trashed:
        """Move files or folders to the trash, from where they can be restored.

        Args:
            paths: Full paths of the files or folders to trash.
        """
        roots = self.library.roots()
        items = [resolve_inside(path, roots) for path in paths]
        if not items:
            raise FilesError("name at least one file to trash")
        trashed = [move_to_trash(item) for item in items]
        self.library.refresh(set(items))
        return Trashed(trashed=trashed)

    def restore_trashed(self, arguments: Mapping[str, Any], result: Trashed) -> str:
        """Take the items back out of the trash to where they were."""
        restored = [restore(item) for item in result.trashed]
        self.library.refresh({Path(item.original) for item in result.trashed})
        return "; ".join(restored)


def _check_free(targets: list[Path]) -> None:
    taken = [str(t) for t in targets if os.path.lexists(t)]
    if taken:
        raise FilesError(f"already exists, nothing was replaced: {', '.join(taken)}")
    if len(set(targets)) != len(targets):
        raise FilesError("two of the items have the same name; move them separately")


def _write_new(target: Path, data: bytes, *, replace: bool) -> None:
    # O_EXCL and O_NOFOLLOW: never write through a link or onto a file that appeared meanwhile.
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.hearth-tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(temporary if replace else target, flags, 0o644)
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    if replace:
        temporary.replace(target)


def _backup_for_overwrite(target: Path, overwrite: bool, library: FileLibrary) -> str | None:
    if not os.path.lexists(target):
        return None
    if not overwrite:
        raise FilesError(f"{target} already exists; nothing was written")
    if not library.settings().allow_overwrite:
        raise FilesError(
            f"{target} already exists, and replacing files is turned off in the files "
            "connector's settings; nothing was written"
        )
    if not target.is_file():
        raise FilesError(f"{target} is not a file")
    backups = data_dir() / "files-undo"
    backups.mkdir(parents=True, exist_ok=True)
    backup = backups / f"{uuid.uuid4().hex}-{target.name}"
    shutil.copy2(target, backup)
    return str(backup)
