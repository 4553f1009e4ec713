"""The file tools that move things: move, rename and trash, each with the method that undoes it.

Each one locates every path below a grant, acts through folder descriptors reached without
following a link (`fsops`), never replaces anything, never acts on a granted folder itself,
shows a preview before it runs and returns what undo needs. Nothing is deleted: trash goes to
the trash, and undo re-checks everything a new write would.

Move, rename and trash journal each item (`hearth.journal_step`) before changing it, so a batch
that stops half-way, by an error or a crash, can be undone from its journal; their undo leaves
alone an item that never changed. A move first sweeps its destination of the temporary copies a
killed move left there (`leftovers`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth import UndoFailed, counted, journal_step, tool
from hearth.connectors.files.errors import FilesError
from hearth.connectors.files.fsops import (
    Spot,
    entry_at,
    folder_of,
    parent_of,
    refusal,
    refuse_root,
    stat_at,
)
from hearth.connectors.files.leftovers import sweep
from hearth.connectors.files.library import FileLibrary
from hearth.connectors.files.names import shown
from hearth.connectors.files.previews import preview_move, preview_rename, preview_trash
from hearth.connectors.files.results import Move, Moved, Trashed, TrashedItem
from hearth.connectors.files.roots import check_new_name, locate, refuse_spoofing
from hearth.connectors.files.transfer import move_entry
from hearth.connectors.files.trash import move_to_trash, restore


class WritingTools:
    """The files connector's tools that move files, each with the method that undoes it."""

    library: FileLibrary

    @tool(
        effect="write",
        scope=("sources", "destination"),
        preview=preview_move,
        keywords=("move", "organise", "organize", "tidy"),
        undo="move_back",
        check="check_move",
    )
    def move(self, sources: list[str], destination: str) -> Moved:
        """Move files or folders into another folder.

        Args:
            sources: Full paths of the files or folders to move.
            destination: Full path of the folder to move them into.
        """
        grants = self.library.grants()
        target = locate(destination, grants)
        items = [locate(source, grants) for source in sources]
        if not items:
            raise FilesError("name at least one file to move")
        for item in items:
            refuse_root(item)
            refuse_spoofing(item.name)
            if target.grant == item.grant and target.parts[: len(item.parts)] == item.parts:
                raise FilesError(f"cannot move {shown(str(item.path))} into itself")
        if len({item.name for item in items}) != len(items):
            raise FilesError("two of the items have the same name; move them separately")
        for item in items:
            with parent_of(item) as folder:
                entry_at(folder, item)
        moved: list[Move] = []
        try:
            with folder_of(target) as folder:
                sweep(folder)
                _refuse_taken(folder, [target.child(item.name) for item in items])
                for item in items:
                    moved.append(_journaled_move(item, folder, target.child(item.name)))
        except FilesError as error:
            raise _stopped(error, [m["to"] for m in moved], len(items), "moved") from None
        finally:
            touched = (p for item in items for p in (item.path, target.path / item.name))
            self.library.refresh(set(touched))
        return Moved(moved=moved)

    @tool(
        effect="write",
        scope="path",
        preview=preview_rename,
        keywords=("rename", "name"),
        undo="move_back",
        check="check_path",
    )
    def rename(self, path: str, new_name: str) -> Moved:
        """Rename a file or folder, keeping it in the same folder.

        Args:
            path: Full path of the file or folder.
            new_name: The new name only, without any folder.
        """
        item = locate(path, self.library.grants())
        refuse_root(item)
        new = Spot(item.grant, (*item.parts[:-1], check_new_name(new_name)))
        with parent_of(item) as folder:
            entry_at(folder, item)
            _refuse_taken(folder, [new])
            moved = _journaled_move(item, folder, new)
        self.library.refresh({item.path, new.path})
        return Moved(moved=[moved])

    def move_back(self, arguments: Mapping[str, Any], result: Moved) -> str:
        """Put moved or renamed items back; refuses if something new took their place.

        An item that never moved (its batch stopped before it) is left where it is.
        """
        grants = self.library.grants()
        failed = [(m["from"], m["to"]) for m in result.not_moved]
        items = [m for m in result.moved if (m["from"], m["to"]) not in failed]
        try:
            pairs = [(locate(m["to"], grants), locate(m["from"], grants)) for m in items]
            back = [(now, before) for now, before in pairs if _moved_away(now, before)]
            for now, before in reversed(back):
                with parent_of(before) as folder:
                    _move_into(now, folder, before, undoing=True)
        except FilesError as error:
            raise UndoFailed(str(error)) from None
        self.library.refresh({spot.path for pair in pairs for spot in pair})
        never = len(result.moved) - len(back)
        left = f"; {never} never moved, so left where they are" if never else ""
        return f"moved {counted(len(back), 'item')} back{left}"

    @tool(
        effect="write",
        scope="paths",
        preview=preview_trash,
        keywords=("delete", "remove", "trash", "bin", "throw", "discard"),
        undo="restore_trashed",
        check="check_trash",
    )
    def trash(self, paths: list[str]) -> Trashed:
        """Move files or folders to the trash, from where they can be restored.

        Args:
            paths: Full paths of the files or folders to trash.
        """
        grants = self.library.grants()
        items = [locate(path, grants) for path in paths]
        if not items:
            raise FilesError("name at least one file to trash")
        for item in items:
            refuse_root(item)
            with parent_of(item) as folder:
                entry_at(folder, item)
        trashed: list[TrashedItem] = []
        try:
            for item in items:
                with parent_of(item) as folder:
                    entry_at(folder, item)
                    trashed.append(move_to_trash(folder, item, journal_step))
        except FilesError as error:
            raise _stopped(error, [t.original for t in trashed], len(items), "trashed") from None
        finally:
            self.library.refresh({item.path for item in items})
        return Trashed(trashed=trashed)

    def restore_trashed(self, arguments: Mapping[str, Any], result: Trashed) -> str:
        """Take the items back out of the trash to where they were.

        Refuses before anything moves if one cannot go back; an item that never reached the
        trash (its batch stopped before it) is left where it is.
        """
        grants = self.library.grants()
        items = [item for item in result.trashed if item not in result.not_trashed]
        for item in items:
            restore(item, grants, check_only=True)
        done = [
            f"restored {item.original}" if restore(item, grants) else f"left {item.original}"
            for item in items
        ]
        self.library.refresh({locate(item.original, grants).path for item in items})
        return "; ".join(done) or "nothing had reached the trash"


def _stopped(error: FilesError, done: list[str], total: int, verb: str) -> FilesError:
    """`error`, saying which items were already done when a batch stopped part-way."""
    if not done:
        return error
    listed = ", ".join(done)
    return type(error)(f"{error}. {len(done)} of {total} items were {verb} before that: {listed}")


def _refuse_taken(folder: int, targets: list[Spot], *, undoing: bool = False) -> None:
    """Refuse before anything moves when a target name is taken (the move re-checks)."""
    taken = [shown(str(t.path)) for t in targets if stat_at(folder, t.name) is not None]
    if taken and undoing:
        raise UndoFailed(f"something new is at {', '.join(taken)}; nothing was replaced")
    if taken:
        raise FilesError(f"already exists, nothing was replaced: {', '.join(taken)}")


def _journaled_move(item: Spot, target_folder: int, target: Spot) -> Move:
    """Journal the move of `item` to `target`, then make it; a move that fails is journaled too."""
    step: Move = {"from": shown(str(item.path)), "to": shown(str(target.path))}
    journal_step("moved", step)
    try:
        _move_into(item, target_folder, target)
    except FilesError:
        journal_step("not_moved", step)
        raise
    return step


def _moved_away(now: Spot, before: Spot) -> bool:
    """Whether undo must move `now` back to `before`; False if it never left. Refuses the rest."""
    with parent_of(now) as folder:
        there = stat_at(folder, now.name) is not None
    with parent_of(before) as folder:
        here = stat_at(folder, before.name) is not None
    if here and there:
        raise UndoFailed(f"something new is at {shown(str(before.path))}; nothing was replaced")
    if not (here or there):
        raise UndoFailed(f"{shown(str(now.path))} is no longer there")
    return there


def _move_into(item: Spot, target_folder: int, target: Spot, *, undoing: bool = False) -> None:
    """Move `item` to `target.name` in the held `target_folder`, never replacing anything."""
    with parent_of(item) as folder:
        entry_at(folder, item)
        try:
            move_entry(folder, item.name, target_folder, target.name)
        except FileExistsError:
            _refuse_taken(target_folder, [target], undoing=undoing)
            raise FilesError(
                f"already exists, nothing was replaced: {shown(str(target.path))}"
            ) from None
        except OSError as error:
            raise refusal(item.path, error, folder) from None
