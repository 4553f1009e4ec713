"""Granted folders are fixed points: no tool moves, renames or trashes one, and each is pinned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hearth import Tool
from hearth.connectors.files import FileLibrary, FilesConnector, FilesError, PathRefused
from hearth.connectors.files.index import Query
from hearth.connectors.files.roots import real_root
from tests.connectors.files.conftest import call

REPLACED = "replaced since you granted it"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "notes.txt").write_text("the neighbour's wifi password: wombat")
    return secret


def allow_overwrite(library: FileLibrary) -> None:
    library.store.save("files", library.settings().model_copy(update={"allow_overwrite": True}))


def test_a_granted_folder_itself_is_never_moved_renamed_trashed_or_written(
    connector: FilesConnector, tools: dict[str, Tool], documents: Path, tmp_path: Path
) -> None:
    other = tmp_path / "Other"
    other.mkdir()
    connector.grant(other)
    allow_overwrite(connector.library)
    attempts = [
        ("files.move", {"sources": [str(documents)], "destination": str(other)}),
        ("files.move", {"sources": [f"{documents}/"], "destination": str(other)}),
        ("files.rename", {"path": str(documents), "new_name": "Renamed"}),
        ("files.rename", {"path": f"{documents}/", "new_name": "Renamed"}),
        ("files.trash", {"paths": [str(documents)]}),
        ("files.trash", {"paths": [f"{documents}//"]}),
        ("files.write_text", {"path": str(documents), "text": "x", "overwrite": True}),
        ("files.create_folder", {"path": str(documents)}),
    ]
    for name, arguments in attempts:
        with pytest.raises(FilesError, match="granted folder"):
            call(tools, name, **arguments)
    assert (documents / "notes.txt").is_file() and not any(other.iterdir())
    assert sorted(connector.roots()) == sorted([real_root(documents), real_root(other)])


def test_a_granted_folder_swapped_for_a_link_is_refused_and_never_indexed(
    connector: FilesConnector,
    tools: dict[str, Tool],
    documents: Path,
    outside: Path,
    tmp_path: Path,
) -> None:
    library = connector.library
    documents.rename(tmp_path / "Documents-was")
    documents.symlink_to(outside)
    attempts = [
        ("files.read", {"path": str(documents / "notes.txt")}),
        ("files.list", {"folder": str(documents)}),
        ("files.search", {"query": "wombat", "folder": str(documents)}),
        ("files.write_text", {"path": str(documents / "new.txt"), "text": "x"}),
        ("files.create_folder", {"path": str(documents / "new")}),
        ("files.rename", {"path": str(documents / "notes.txt"), "new_name": "mine.txt"}),
        ("files.trash", {"paths": [str(documents / "notes.txt")]}),
    ]
    for name, arguments in attempts:
        with pytest.raises(PathRefused, match=REPLACED):
            call(tools, name, **arguments)
    assert [p.name for p in outside.iterdir()] == ["notes.txt"]
    assert connector.roots() == []
    library.start()
    assert library.wait_idle(60)
    assert library.index.search(Query("wombat"), [real_root(documents), outside]) == []
    assert any(REPLACED in warning for warning in library.status().warnings)


def test_a_granted_folder_renamed_and_recreated_is_refused_until_granted_again(
    connector: FilesConnector, tools: dict[str, Tool], documents: Path, tmp_path: Path
) -> None:
    documents.rename(tmp_path / "Documents-was")
    documents.mkdir()
    (documents / "notes.txt").write_text("planted by someone else")
    with pytest.raises(PathRefused, match=REPLACED):
        call(tools, "files.read", path=str(documents / "notes.txt"))
    assert call(tools, "files.list") == {"granted_folders": []}
    connector.grant(documents)  # the user means it: the new folder is pinned now
    assert call(tools, "files.read", path=str(documents / "notes.txt"))["text"].startswith(
        "planted"
    )


def test_settings_saved_with_paths_only_still_work_and_get_pinned(
    connector: FilesConnector, tools: dict[str, Tool], documents: Path
) -> None:
    store = connector.library.store
    store.path("files").write_text(json.dumps({"folders": [str(real_root(documents))]}))
    assert connector.roots() == [real_root(documents)]
    assert call(tools, "files.read", path=str(documents / "notes.txt"))["text"].startswith("Rem")
    [saved] = json.loads(store.path("files").read_text())["folders"]
    info = documents.stat()
    assert (saved["path"], saved["device"], saved["inode"]) == (
        str(real_root(documents)),
        info.st_dev,
        info.st_ino,
    )
