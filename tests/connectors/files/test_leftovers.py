"""The temporary copies a killed Hearth leaves are swept at the next start and by the next move:
only Hearth's own names, only of processes that are gone, never through a link, only in grants.

The first test kills a real process mid-copy across filesystems (`python -m
tests.connectors.files.test_leftovers ...`), paused there by a hook in that child only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth import Tool
from hearth.connectors.files import FileLibrary, FilesConnector, transfer
from hearth.store import open_database
from tests.connectors.files.conftest import call, leftovers
from tests.connectors.files.test_journal import contents, open_assistant, run_call

REPO = Path(__file__).parents[3]
SIZE = 300_000


def leftover_name(pid: int) -> str:
    return f".hearth-{pid}-{uuid.uuid4().hex[:12]}.tmp"


@pytest.fixture
def gone() -> int:
    """The id of a process that has ended."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


@pytest.fixture
def running() -> Iterator[int]:
    """The id of another process that is still running."""
    process = subprocess.Popen(["sleep", "60"])
    yield process.pid
    process.kill()
    process.wait()


def child(database: str, destination: str, kill_at: str, *sources: str) -> None:
    """Move `sources` across filesystems, stopping for good half-way through copy `kill_at`."""
    real_write_all = transfer._write_all
    writes = [0]

    def write_all(descriptor: int, data: bytes) -> None:
        writes[0] += 1
        if writes[0] < int(kill_at):
            real_write_all(descriptor, data)
            return
        real_write_all(descriptor, data[: len(data) // 2])
        os.fsync(descriptor)
        print("copying", flush=True)
        time.sleep(60)  # killed here

    transfer._write_all = write_all
    connector = FilesConnector(FileLibrary())
    assistant = open_assistant(connector, open_database(Path(database)))
    print("ready", flush=True)
    run_call(assistant, "files.move", sources=list(sources), destination=destination)


def kill_mid_copy(database: Path, destination: Path, kill_at: int, sources: list[Path]) -> int:
    """Run `child` until it is half-way through copy `kill_at`, SIGKILL it; its process id."""
    command = [sys.executable, "-m", "tests.connectors.files.test_leftovers", str(database)]
    arguments = [str(destination), str(kill_at), *map(str, sources)]
    process = subprocess.Popen(
        [*command, *arguments], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None
    try:
        for line in process.stdout:
            if line.strip() == b"copying":
                break
        else:
            pytest.fail(f"the child ended first: {process.communicate()}")
    finally:
        process.kill()
        _, errors = process.communicate()
    assert b"Traceback" not in errors, errors.decode()
    return process.pid


def test_a_move_across_filesystems_killed_mid_copy_is_swept_at_the_next_start_and_undone(
    documents: Path, other_drive: Path, tmp_path: Path
) -> None:
    album = documents / "album"
    album.mkdir()
    for path in (documents / "a.bin", documents / "b.bin", *(album / n for n in "xyz")):
        path.write_bytes(os.urandom(SIZE))
    sources = [documents / "a.bin", documents / "b.bin", album]
    before = {path: path.read_bytes() for path in documents.rglob("*") if path.is_file()}
    # Copies: a.bin, b.bin, then album/x, album/y: killed half-way through y.
    pid = kill_mid_copy(tmp_path / "hearth.db", other_drive, 4, sources)
    (left,) = leftovers(other_drive)
    assert left.startswith(f".hearth-{pid}-") and (other_drive / left).is_dir()
    assert sorted(p.name for p in other_drive.iterdir()) == sorted([left, "a.bin", "b.bin"])

    connector = FilesConnector(FileLibrary(poll_seconds=0.5))
    assistant = open_assistant(connector, open_database(tmp_path / "hearth.db"), start=True)
    try:
        assert connector.library.wait_idle()
        assert leftovers(other_drive) == []
        (entry,) = assistant.undoable()
        assert entry.state == "unknown"
        assert [Path(item["from"]) for item in entry.result["moved"]] == sources
        done = assistant.undo(entry.call_id)
        assert done.summary == "moved 2 items back; 1 never moved, so left where they are"
        after = {path: path.read_bytes() for path in documents.rglob("*") if path.is_file()}
        assert after == before
        assert list(other_drive.iterdir()) == []
    finally:
        assistant.close()
        connector.close()


def test_a_move_across_filesystems_killed_while_removing_the_original_is_swept_and_undone(
    connector: FilesConnector,
    documents: Path,
    other_drive: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    gone: int,
) -> None:
    """The original is renamed away before it is removed: a kill part-way leaves a leftover to
    sweep, and the whole copy, which undo moves back, rather than half an original beside it.

    Run in this process, named as a process that has ended would have named it.
    """
    album = documents / "album"
    album.mkdir()
    for name in "xyz":
        (album / name).write_bytes(os.urandom(SIZE))
    before = {path: path.read_bytes() for path in documents.rglob("*") if path.is_file()}
    real_remove = transfer.remove_entry

    def remove_then_die(folder: int, name: str) -> None:
        if not os.path.samestat(os.fstat(folder), documents.stat()):
            real_remove(folder, name)
            return
        doomed = os.open(name, os.O_RDONLY, dir_fd=folder)
        os.unlink("x", dir_fd=doomed)
        os.close(doomed)
        raise KeyboardInterrupt  # stands in for SIGKILL, half-way through the removal

    first = open_assistant(connector, open_database(tmp_path / "hearth.db"))
    with monkeypatch.context() as patch, pytest.raises(KeyboardInterrupt):
        patch.setattr(transfer, "temporary_name", lambda: leftover_name(gone))
        patch.setattr(transfer, "remove_entry", remove_then_die)
        run_call(first, "files.move", sources=[str(album)], destination=str(other_drive))
    first.db.close()
    (left,) = leftovers(documents)
    assert not album.exists() and sorted(p.name for p in (documents / left).iterdir()) == ["y", "z"]

    assistant = open_assistant(connector, open_database(tmp_path / "hearth.db"), start=True)
    try:
        assert connector.library.wait_idle()
        assert leftovers(documents) == [] and leftovers(other_drive) == []
        (entry,) = assistant.undoable()
        assert entry.state == "unknown"
        assert assistant.undo(entry.call_id).summary == "moved 1 item back"
        after = {path: path.read_bytes() for path in documents.rglob("*") if path.is_file()}
        assert after == before and list(other_drive.iterdir()) == []
    finally:
        assistant.close()


def test_the_sweep_at_start_removes_only_leftovers_of_ended_processes_and_follows_no_link(
    connector: FilesConnector, documents: Path, tmp_path: Path, gone: int, running: int
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("outside the grant")
    (outside / leftover_name(gone)).write_text("outside the grant, never swept")
    (documents / "linked").symlink_to(outside)

    deep_file = documents / "projects" / leftover_name(gone)
    deep_file.write_bytes(b"half a cop")
    folder = documents / leftover_name(gone)
    (folder / "inner").mkdir(parents=True)
    (folder / "inner" / "part.bin").write_bytes(b"part")
    (folder / "out").symlink_to(outside)
    link = documents / leftover_name(gone)
    link.symlink_to(outside)
    kept = [
        documents / leftover_name(os.getpid()),  # this process may be writing it
        documents / leftover_name(running),  # so may another running Hearth
        documents / ".hearth-notes.tmp",  # not a name Hearth makes
        documents / f".hearth-{gone}-notes.tmp",
    ]
    for path in kept:
        path.write_text("kept")
    outside_before = sorted(p.name for p in outside.iterdir())

    connector.start()
    try:
        assert connector.library.wait_idle()
    finally:
        connector.stop()
    assert not deep_file.exists() and not folder.exists() and not link.is_symlink()
    assert all(path.read_text() == "kept" for path in kept)
    assert sorted(p.name for p in outside.iterdir()) == outside_before
    assert (outside / "keep.txt").read_text() == "outside the grant"


def test_the_next_move_sweeps_its_destination(
    tools: dict[str, Tool], documents: Path, gone: int
) -> None:
    archive = documents / "archive"
    archive.mkdir()
    (archive / leftover_name(gone)).write_bytes(b"half a cop")
    mine = archive / leftover_name(os.getpid())
    mine.write_bytes(b"being written")
    call(tools, "files.move", sources=[str(documents / "notes.txt")], destination=str(archive))
    assert sorted(p.name for p in archive.iterdir()) == sorted([mine.name, "notes.txt"])
    assert contents(archive)["notes.txt"].startswith(b"Remember")


if __name__ == "__main__":
    child(*sys.argv[1:])
