"""Check-then-use races: a folder flipped for a link mid-call, a file appearing at a destination.

The racer swaps a subfolder of the grant with a symlink to a folder outside it, atomically
(renameat2 RENAME_EXCHANGE), as fast as it can while the tools run against that subfolder.
"""

from __future__ import annotations

import ctypes
import errno
import os
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hearth import Tool
from hearth.connectors.files import FilesError
from tests.connectors.files.conftest import call

FLIPS = 2000
ROUNDS = 500  # each round reads, writes, moves in, moves out and trashes once
INSIDE, SECRET = "inside text", "SECRET outside text"
AT_FDCWD = -100
RENAME_EXCHANGE = 2

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux")


def exchange(first: Path, second: Path) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    done = libc.renameat2(
        AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE
    )
    if done != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def flipping(documents: Path, tmp_path: Path) -> Iterator[tuple[Path, Path, Callable[[], int]]]:
    """documents/sub, flipping between a real folder and a link to `outside`, and its flips."""
    sub, outside = documents / "sub", tmp_path / "outside"
    sub.mkdir()
    outside.mkdir()
    for folder, text in ((sub, INSIDE), (outside, SECRET)):
        (folder / "a.txt").write_text(text)
        for n in range(ROUNDS):
            (folder / f"m-{n}.txt").write_text(text)
            (folder / f"t-{n}.txt").write_text(text)
    (documents / ".swap").symlink_to(outside)
    for n in range(ROUNDS):
        (documents / f"d-{n}.txt").write_text(INSIDE)
    stop, flips = threading.Event(), [0]

    def race() -> None:
        holds = random.Random(7)
        while not stop.is_set() or flips[0] < FLIPS:
            exchange(sub, documents / ".swap")
            flips[0] += 1
            # Mostly back to back, mid-call; now and then held long enough for calls to finish.
            time.sleep(holds.choice((0, 0, 0, 0.0005, 0.002)))

    racer = threading.Thread(target=race, name="racer")
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    racer.start()
    try:
        yield sub, outside, lambda: flips[0]
    finally:
        stop.set()
        racer.join()
        sys.setswitchinterval(interval)


def test_a_folder_flipped_for_a_link_never_lets_a_tool_reach_outside(
    tools: dict[str, Tool],
    documents: Path,
    flipping: tuple[Path, Path, Callable[[], int]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    sub, outside, flips = flipping
    before = snapshot(outside)
    outcomes: Counter[str] = Counter()
    secrets_read = 0
    other_errors: list[BaseException] = []

    def attempt(kind: str, name: str, **arguments: Any) -> Any:
        try:
            result = call(tools, name, **arguments)
        except FilesError:
            outcomes[f"{kind} refused"] += 1
            return None
        except Exception as error:  # anything else is a bug, refused or not
            other_errors.append(error)
            return None
        outcomes[f"{kind} done"] += 1
        return result

    for n in range(ROUNDS):
        excerpt = attempt("read", "files.read", path=str(sub / "a.txt"))
        secrets_read += bool(excerpt and SECRET in excerpt["text"])
        attempt("write", "files.write_text", path=str(sub / f"w-{n}.txt"), text=INSIDE)
        attempt("move", "files.move", sources=[str(sub / f"m-{n}.txt")], destination=str(documents))
        attempt("move", "files.move", sources=[str(documents / f"d-{n}.txt")], destination=str(sub))
        attempt("trash", "files.trash", paths=[str(sub / f"t-{n}.txt")])
    while flips() < FLIPS:
        pass
    changed = sorted(set(before) ^ set(snapshot(outside)))
    changed += [name for name, data in snapshot(outside).items() if before.get(name, data) != data]
    moved_in = [p.name for p in documents.glob("m-*.txt") if p.read_text() == SECRET]
    escapes = len(changed) + secrets_read + len(moved_in)
    with capsys.disabled():
        print(
            f"\nracer: {flips()} flips, {sum(outcomes.values())} calls "
            f"{dict(sorted(outcomes.items()))},"
            f" escapes {escapes} (outside changed {len(changed)}, secret reads {secrets_read},"
            f" outside files moved in {len(moved_in)}), other errors {len(other_errors)}"
        )
    assert escapes == 0, changed[:10]
    assert other_errors == [], other_errors[:5]
    assert flips() >= FLIPS and sum(outcomes.values()) == 5 * ROUNDS
    assert all(outcomes[f"{kind} done"] for kind in ("read", "write", "move", "trash"))


def appearing_at(target: Path, stat: Callable[..., os.stat_result]) -> Callable[..., Any]:
    """os.stat / os.lstat that, the first time `target` is found missing, makes it appear."""
    appeared: list[bool] = []

    def names_target(path: Any, dir_fd: int | None) -> bool:
        if dir_fd is None:
            return Path(os.fsdecode(path)) == target
        held = os.fstat(dir_fd)
        parent = stat(target.parent)
        same_folder = (held.st_dev, held.st_ino) == (parent.st_dev, parent.st_ino)
        return same_folder and os.fsdecode(path) == target.name

    def patched(path: Any, *args: Any, dir_fd: int | None = None, **kwargs: Any) -> Any:
        try:
            return stat(path, *args, dir_fd=dir_fd, **kwargs)
        except FileNotFoundError:
            if not appeared and names_target(path, dir_fd):
                appeared.append(True)
                target.write_text("the user's own file, saved just now")
            raise

    return patched


@pytest.mark.parametrize("tool", ["files.move", "files.rename"])
def test_a_file_appearing_at_the_destination_is_never_replaced(
    tools: dict[str, Tool], documents: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    target = documents / "projects" / "notes.txt"
    if tool == "files.rename":
        target = documents / "budget.txt"
    monkeypatch.setattr(os, "stat", appearing_at(target, os.stat))
    monkeypatch.setattr(os, "lstat", appearing_at(target, os.lstat))
    source = str(documents / "notes.txt")
    with pytest.raises(FilesError, match="already exists") as refused:
        if tool == "files.move":
            call(tools, tool, sources=[source], destination=str(documents / "projects"))
        else:
            call(tools, tool, path=source, new_name="budget.txt")
    monkeypatch.undo()
    assert target.read_text() == "the user's own file, saved just now"
    assert (documents / "notes.txt").read_text().startswith("Remember")
    assert "nothing was replaced" in str(refused.value)


def test_no_replace_rename_keeps_an_existing_destination(documents: Path) -> None:
    from hearth.connectors.files.fsops import rename_no_replace

    (documents / "projects" / "notes.txt").write_text("already here")
    folder = os.open(documents, os.O_RDONLY | os.O_DIRECTORY)
    projects = os.open(documents / "projects", os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(FileExistsError):
            rename_no_replace(folder, "notes.txt", projects, "notes.txt")
        with pytest.raises(OSError) as missing:
            rename_no_replace(folder, "nothing.txt", projects, "nothing.txt")
        assert missing.value.errno == errno.ENOENT
    finally:
        os.close(folder)
        os.close(projects)
    assert (documents / "projects" / "notes.txt").read_text() == "already here"
