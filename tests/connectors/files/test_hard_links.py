"""A file with more than one name (hard link) is refused by every tool and indexed by name only.

Pinning by device and inode cannot see a hard link, and its other name may be outside the
granted folders, so what it holds is never read, copied, changed, moved or trashed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth import Tool, data_dir
from hearth.cli.main import cli
from hearth.connectors.files import FileLibrary, FilesError, PathRefused
from hearth.connectors.files.fsops import HARD_LINKED, Spot, parent_of, pin
from hearth.connectors.files.roots import real_root
from hearth.connectors.files.trash import move_to_trash
from tests.connectors.files.conftest import call, leftovers

SECRET = "the neighbour's wifi password"
REASON = "2 names \\(hard links\\), so it may be a file outside your granted folders"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the granted folder, on the same filesystem."""
    (tmp_path / "outside").mkdir()
    path = tmp_path / "outside" / "secret.txt"
    path.write_text(SECRET)
    return path


@pytest.fixture
def linked(documents: Path, secret: Path) -> Path:
    """A second name for `secret` inside the granted folder, as an unpacked tar can make."""
    path = documents / "linked.txt"
    os.link(secret, path)
    return path


def untouched(secret: Path, linked: Path) -> bool:
    """The outside file has its text, and the name inside still leads to it."""
    return secret.read_text() == SECRET and linked.stat().st_ino == secret.stat().st_ino


def test_read_refuses_a_hard_link_and_says_why(
    tools: dict[str, Tool], linked: Path, secret: Path
) -> None:
    with pytest.raises(PathRefused, match=REASON):
        call(tools, "files.read", path=str(linked))
    assert untouched(secret, linked)


def test_an_overwrite_neither_keeps_nor_changes_the_outside_text(
    tools: dict[str, Tool], library: FileLibrary, linked: Path, secret: Path
) -> None:
    library.store.save("files", library.settings().model_copy(update={"allow_overwrite": True}))
    with pytest.raises(PathRefused, match=REASON):
        call(tools, "files.write_text", path=str(linked), text="mine now", overwrite=True)
    with pytest.raises(FilesError, match="already exists"):
        call(tools, "files.write_text", path=str(linked), text="mine now")
    assert untouched(secret, linked)
    backups = data_dir() / "files-undo"
    assert not backups.exists() or not any(SECRET in p.read_text() for p in backups.iterdir())


def test_rename_move_and_trash_refuse_a_hard_link(
    tools: dict[str, Tool], documents: Path, linked: Path, secret: Path
) -> None:
    attempts = [
        ("files.rename", {"path": str(linked), "new_name": "mine.txt"}),
        ("files.move", {"sources": [str(linked)], "destination": str(documents / "projects")}),
        ("files.trash", {"paths": [str(linked)]}),
    ]
    for name, arguments in attempts:
        with pytest.raises(PathRefused, match=REASON):
            call(tools, name, **arguments)
    assert untouched(secret, linked)
    assert not (documents / "mine.txt").exists()
    assert not (documents / "projects" / "linked.txt").exists()


def test_the_trash_refuses_a_hard_link_it_is_handed(linked: Path, secret: Path) -> None:
    """Undoing a write trashes a file with no other check first; the trash refuses one too."""
    spot = Spot(pin(real_root(linked.parent)), (linked.name,))
    with parent_of(spot) as folder, pytest.raises(PathRefused, match=REASON):
        move_to_trash(folder, spot)
    assert untouched(secret, linked)


def test_the_checks_before_a_card_refuse_a_hard_link(tools: dict[str, Tool], linked: Path) -> None:
    for name in ("files.read", "files.rename", "files.write_text"):
        check = tools[name].check
        assert check is not None
        with pytest.raises(PathRefused, match=REASON):
            check({"path": str(linked), "new_name": "x.txt", "text": "x"})


def test_a_hard_link_with_both_names_inside_is_refused_too(
    tools: dict[str, Tool], documents: Path
) -> None:
    os.link(documents / "notes.txt", documents / "projects" / "notes-again.txt")
    for path in (documents / "notes.txt", documents / "projects" / "notes-again.txt"):
        with pytest.raises(PathRefused, match="even when all its names are inside"):
            call(tools, "files.read", path=str(path))


def test_a_listing_leaves_a_hard_link_out_and_says_so(
    tools: dict[str, Tool], documents: Path, linked: Path
) -> None:
    listing = call(tools, "files.list", folder=str(documents))
    names = [entry["name"] for entry in listing["entries"]]
    assert "linked.txt" not in names and "notes.txt" in names
    assert "1 file with more than one name (hard links) not shown" in listing["note"]


def test_the_index_skips_a_hard_link_with_the_reason(
    tools: dict[str, Tool], library: FileLibrary, documents: Path, linked: Path
) -> None:
    root = real_root(documents)
    library.scanner.scan(root)
    [entry] = library.index.skipped(root)
    assert entry.path == root / "linked.txt"
    assert (entry.skipped or "").startswith(f"{HARD_LINKED}: it has 2 names (hard links)")
    assert call(tools, "files.search", query="wifi password")["results"] == []
    [found] = call(tools, "files.search", query="linked")["results"]
    assert "snippet" not in found


def test_the_cli_names_a_skipped_hard_link_with_its_reason(documents: Path, linked: Path) -> None:
    granted = CliRunner().invoke(cli, ["files", "grant", str(documents)])
    assert granted.exit_code == 0, granted.output
    where = real_root(documents) / "linked.txt"
    assert f"skipped: {where}: {HARD_LINKED}: it has 2 names (hard links)" in granted.output
    assert "wifi" not in granted.output


def test_a_file_left_with_one_name_is_read_by_the_next_scan(
    tools: dict[str, Tool], library: FileLibrary, documents: Path, linked: Path, secret: Path
) -> None:
    root = real_root(documents)
    library.scanner.scan(root)
    secret.unlink()  # its size and time stay the same; only the count of names changes
    library.scanner.scan(root)
    assert library.index.skipped(root) == []
    [found] = call(tools, "files.search", query="wifi password")["results"]
    assert Path(found["path"]).name == "linked.txt"


def test_a_move_to_another_drive_never_copies_a_hard_link(
    tools: dict[str, Tool], documents: Path, other_drive: Path, secret: Path
) -> None:
    """A copy has one name, so copying a hard link would let the outside text in under it."""
    inner = documents / "projects" / "linked.txt"
    os.link(secret, inner)
    with pytest.raises(PathRefused, match=REASON):
        call(
            tools, "files.move", sources=[str(documents / "projects")], destination=str(other_drive)
        )
    assert untouched(secret, inner)
    assert (documents / "projects" / "plan.md").exists()
    assert not (other_drive / "projects").exists() and leftovers(other_drive) == []
