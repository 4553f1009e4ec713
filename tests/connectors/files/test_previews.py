"""The move preview reads correctly when sources share no folder or the destination is odd."""

from __future__ import annotations

from hearth.connectors.files.previews import preview_move, preview_trash


def test_sources_in_unrelated_folders_are_not_said_to_come_from_the_root() -> None:
    preview = preview_move({"sources": ["/srv/a.txt", "/home/u/b.txt"], "destination": "/tmp/x"})
    assert preview == "Move 2 items from several folders to /tmp/x: a.txt, b.txt"


def test_sources_in_sibling_folders_name_the_folder_they_share() -> None:
    preview = preview_trash({"paths": ["/home/u/A/a.txt", "/home/u/B/b.txt"]})
    assert preview == "Move 2 items from several folders in /home/u to the trash: a.txt, b.txt"


def test_relative_or_missing_paths_are_named_as_such_never_left_blank() -> None:
    preview = preview_move({"sources": ["a.txt", "b.txt"], "destination": "files.tmp/"})
    assert preview == (
        "Move 2 items from an unnamed folder to 'files.tmp/' (not a full path): a.txt, b.txt"
    )
    assert " from  to " not in preview_move({"sources": ["a"], "destination": ""})
