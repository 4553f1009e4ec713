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

from hearth import Tool, UndoFailed, data_dir, make_tool
from hearth.connectors.files.library import FileLibrary
from hearth.connectors.files.previews import (
    preview_move,
    preview_rename,
    preview_trash,
    preview_write,
)
from hearth.connectors.files.reading import KEYWORDS
from hearth.connectors.files.roots import FilesError, check_new_name, resolve_inside
from hearth.connectors.files.trash import Trashed, move_to_trash, restore

WRITE_LIMIT = 1_000_000


def writing_tools(library: FileLibrary) -> list[Tool]:
    def files_move(sources: list[str], destination: str) -> dict[str, Any]:
        """Move files or folders into another folder.

        Args:
            sources: Full paths of the files or folders to move.
            destination: Full path of the folder to move them into.
        """
        roots = library.roots()
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
        moved = []
        for item, new in plan:
            shutil.move(item, new)
            moved.append({"from": str(item), "to": str(new)})
        library.refresh({p for item, new in plan for p in (item, new)})
        return {"moved": moved}

    def files_rename(path: str, new_name: str) -> dict[str, Any]:
        """Rename a file or folder, keeping it in the same folder.

        Args:
            path: Full path of the file or folder.
            new_name: The new name only, without any folder.
        """
        item = resolve_inside(path, library.roots())
        new = item.with_name(check_new_name(new_name))
        _check_free([new])
        item.rename(new)
        library.refresh({item, new})
        return {"moved": [{"from": str(item), "to": str(new)}]}

    def files_create_folder(path: str) -> dict[str, Any]:
        """Create a new, empty folder.

        Args:
            path: Full path of the folder to create; its parent must exist.
        """
        target = resolve_inside(path, library.roots(), must_exist=False)
        check_new_name(target.name)
        _check_free([target])
        target.mkdir()
        library.refresh({target})
        return {"created": str(target)}

    def files_write_text(path: str, text: str, overwrite: bool = False) -> dict[str, Any]:
        """Write text to a new file.

        Args:
            path: Full path of the file to write.
            text: The text to write.
            overwrite: Replace the file if it exists (only if the user allows overwriting).
        """
        target = resolve_inside(path, library.roots(), must_exist=False)
        check_new_name(target.name)
        if len(text) > WRITE_LIMIT:
            raise FilesError(f"the text is over {WRITE_LIMIT} characters")
        backup = _backup_for_overwrite(target, overwrite, library)
        _write_new(target, text.encode("utf-8"), replace=backup is not None)
        library.refresh({target})
        digest = hashlib.sha256(target.read_bytes()).hexdigest()
        return {"written": str(target), "sha256": digest, "backup": backup}

    def files_trash(paths: list[str]) -> dict[str, Any]:
        """Move files or folders to the trash, from where they can be restored.

        Args:
            paths: Full paths of the files or folders to trash.
        """
        roots = library.roots()
        items = [resolve_inside(path, roots) for path in paths]
        if not items:
            raise FilesError("name at least one file to trash")
        trashed = [move_to_trash(item) for item in items]
        library.refresh(set(items))
        return {"trashed": [vars_of(item) for item in trashed]}

    def moved_back(arguments: Mapping[str, Any], result: Any) -> str:
        return _undo_moves(result["moved"], library)

    return [
        make_tool(
            files_move,
            effect="write",
            scope="sources",
            scope_kind="path",
            name="files.move",
            preview=preview_move,
            undo=moved_back,
            keywords=(*KEYWORDS, "move", "organise", "organize", "tidy"),
        ),
        make_tool(
            files_rename,
            effect="write",
            scope="path",
            scope_kind="path",
            name="files.rename",
            preview=preview_rename,
            undo=moved_back,
            keywords=(*KEYWORDS, "rename", "name"),
        ),
        make_tool(
            files_create_folder,
            effect="write",
            scope="path",
            scope_kind="path",
            name="files.create_folder",
            preview=lambda a: f"Create the folder {a['path']}",
            undo=lambda a, r: _remove_empty_folder(Path(r["created"]), library),
            keywords=(*KEYWORDS, "create", "new", "make", "mkdir"),
        ),
        make_tool(
            files_write_text,
            effect="write",
            scope="path",
            scope_kind="path",
            name="files.write_text",
            preview=preview_write,
            undo=lambda a, r: _undo_write(r, library),
            keywords=(*KEYWORDS, "write", "save", "create", "note"),
        ),
        make_tool(
            files_trash,
            effect="write",
            scope="paths",
            scope_kind="path",
            name="files.trash",
            preview=preview_trash,
            undo=lambda a, r: _undo_trash(r["trashed"], library),
            keywords=(*KEYWORDS, "delete", "remove", "trash", "bin"),
        ),
    ]


def vars_of(item: Trashed) -> dict[str, str | None]:
    return {"original": item.original, "trash_file": item.trash_file, "info_file": item.info_file}


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


def _undo_moves(moved: list[dict[str, str]], library: FileLibrary) -> str:
    roots = library.roots()
    pairs = [(Path(m["to"]), Path(m["from"])) for m in reversed(moved)]
    for now, before in pairs:
        if not os.path.lexists(now):
            raise UndoFailed(f"{now} is no longer there")
        if os.path.lexists(before):
            raise UndoFailed(f"something new is at {before}; nothing was replaced")
        resolve_inside(str(before.parent), roots)
    for now, before in pairs:
        shutil.move(now, before)
    library.refresh({p for pair in pairs for p in pair})
    return f"moved {len(pairs)} item(s) back"


def _remove_empty_folder(folder: Path, library: FileLibrary) -> str:
    if any(folder.iterdir()):
        raise UndoFailed(f"{folder} is not empty any more; it was left in place")
    folder.rmdir()
    library.refresh({folder})
    return f"removed the empty folder {folder}"


def _undo_write(result: Mapping[str, Any], library: FileLibrary) -> str:
    target = Path(result["written"])
    if not target.is_file():
        raise UndoFailed(f"{target} is no longer there")
    if hashlib.sha256(target.read_bytes()).hexdigest() != result["sha256"]:
        raise UndoFailed(f"{target} was changed since Hearth wrote it; it was left as it is")
    if result.get("backup"):
        Path(result["backup"]).replace(target)
        summary = f"put back the previous text of {target}"
    else:
        restore_point = move_to_trash(target)
        summary = f"moved {target} to the trash ({restore_point.trash_file or 'OS trash'})"
    library.refresh({target})
    return summary


def _undo_trash(trashed: list[dict[str, str | None]], library: FileLibrary) -> str:
    items = [Trashed(t["original"] or "", t["trash_file"], t["info_file"]) for t in trashed]
    restored = [restore(item) for item in items]
    library.refresh({Path(item.original) for item in items})
    return "; ".join(restored)
