"""Moves across filesystems: copied under a temporary name, renamed into place, then the source
removed; a failure part-way leaves the source and no partial copy."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from hearth import Tool
from hearth.connectors.files import FilesConnector, FilesError, fsops, transfer
from tests.connectors.files.conftest import SHM, call, leftovers


def test_a_move_across_filesystems_copies_then_removes(
    tools: dict[str, Tool], documents: Path, other_drive: Path
) -> None:
    (documents / "projects" / "deep").mkdir()
    (documents / "projects" / "deep" / "more.txt").write_text("more")
    (documents / "projects" / "link").symlink_to("/etc")
    before = (documents / "notes.txt").stat()
    moved = call(
        tools,
        "files.move",
        sources=[str(documents / "notes.txt"), str(documents / "projects")],
        destination=str(other_drive),
    )
    assert [Path(m["to"]).name for m in moved["moved"]] == ["notes.txt", "projects"]
    assert not (documents / "notes.txt").exists() and not (documents / "projects").exists()
    assert (other_drive / "notes.txt").read_text().startswith("Remember")
    assert (other_drive / "notes.txt").stat().st_mtime_ns == before.st_mtime_ns
    assert (other_drive / "projects" / "plan.md").read_text().startswith("# Plan")
    assert (other_drive / "projects" / "deep" / "more.txt").read_text() == "more"
    assert (other_drive / "projects" / "link").readlink() == Path("/etc")  # copied as a link
    assert leftovers(other_drive) == []


def test_a_failed_copy_across_filesystems_leaves_the_source_and_no_partial_copy(
    tools: dict[str, Tool],
    documents: Path,
    other_drive: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_copy = transfer._copy_file
    copies = []

    def copy_then_fail(*args: object) -> None:
        copies.append(args)
        if len(copies) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_copy(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(transfer, "_copy_file", copy_then_fail)
    (documents / "projects" / "second.md").write_text("second")
    with pytest.raises(FilesError, match="No space left"):
        call(
            tools, "files.move", sources=[str(documents / "projects")], destination=str(other_drive)
        )
    assert sorted(p.name for p in (documents / "projects").iterdir()) == ["plan.md", "second.md"]
    assert list(other_drive.iterdir()) == []


def test_a_destination_taken_while_copying_is_never_replaced(
    tools: dict[str, Tool],
    documents: Path,
    other_drive: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_copy = transfer._copy

    def copy_while_the_user_saves(folder: int, name: str, target: int, temporary: str) -> None:
        real_copy(folder, name, target, temporary)
        (other_drive / "notes.txt").write_text("the user's own notes")

    monkeypatch.setattr(transfer, "_copy", copy_while_the_user_saves)
    with pytest.raises(FilesError, match="already exists"):
        call(
            tools,
            "files.move",
            sources=[str(documents / "notes.txt")],
            destination=str(other_drive),
        )
    assert (other_drive / "notes.txt").read_text() == "the user's own notes"
    assert (documents / "notes.txt").read_text().startswith("Remember")
    assert leftovers(other_drive) == []


def test_the_portable_no_replace_rename(documents: Path) -> None:
    """Where no-replace rename is missing: files by link then unlink, folders checked first."""
    (documents / "projects" / "notes.txt").write_text("already here")
    (documents / "inner").mkdir()
    (documents / "projects" / "taken").mkdir()
    (documents / "taken").mkdir()
    folder = os.open(documents, fsops.FOLDER)
    projects = os.open(documents / "projects", fsops.FOLDER)
    try:
        for name in ("notes.txt", "taken"):
            with pytest.raises(FileExistsError):
                fsops._link_then_unlink(folder, name, projects, name)
        fsops._link_then_unlink(folder, "letter.docx", projects, "letter.docx")
        fsops._link_then_unlink(folder, "inner", projects, "inner")
    finally:
        os.close(folder)
        os.close(projects)
    assert (documents / "projects" / "notes.txt").read_text() == "already here"
    assert (documents / "projects" / "letter.docx").exists()
    assert (documents / "projects" / "inner").is_dir()
    assert not (documents / "letter.docx").exists() and not (documents / "inner").exists()


def test_trash_on_another_drive_uses_that_drives_trash_and_restores(
    connector: FilesConnector, tools: dict[str, Tool], other_drive: Path
) -> None:
    drive_trash = SHM / f".Trash-{os.getuid()}"
    existed = drive_trash.exists()
    (other_drive / "old.txt").write_text("on the other drive")
    try:
        trashed = tools["files.trash"].invoke({"paths": [str(other_drive / "old.txt")]})
        [item] = trashed.trashed
        assert item.trash_file and Path(item.trash_file).is_relative_to(drive_trash)
        info = Path(item.info_file or "").read_text()
        assert f"Path={other_drive.relative_to(SHM)}/old.txt" in info  # relative to the drive
        assert not (other_drive / "old.txt").exists()
        connector.restore_trashed({}, trashed)
        assert (other_drive / "old.txt").read_text() == "on the other drive"
        assert not Path(item.info_file or "").exists()
    finally:
        if not existed:
            shutil.rmtree(drive_trash, ignore_errors=True)
