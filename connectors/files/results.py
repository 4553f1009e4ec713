"""What the file tools return: typed results that serialise to the JSON the model reads.

An optional `note` or `snippet` (or an empty `not_moved`, `not_trashed`) is left out of the
JSON when there is none, so the model sees only what it can use. Undo receives these types back,
even after a restart read them from disk, or built from a batch's journal (see `hearth.journal`):
then only the journaled lists are there, so every other field has a default.
"""

from __future__ import annotations

import pydantic
from typing_extensions import TypedDict

from hearth import ToolResult

# Functional form: "from" is a Python keyword, and the model has always read {"from", "to"}.
Move = TypedDict("Move", {"from": str, "to": str})
"""One item moved or renamed: where it was and where it is now."""


class Result(ToolResult):
    """Base of the file tools' results: frozen, and optional fields omitted while empty."""

    omitted_when_empty = frozenset({"note", "snippet", "not_moved", "not_trashed"})


class FoundFile(Result):
    """One search hit; `snippet` marks where the words were found in the text."""

    path: str
    kind: str
    size: int
    modified: str
    snippet: str | None = None


class SearchResults(Result):
    results: list[FoundFile]
    note: str | None = None


class GrantedFolders(Result):
    """What files.list shows without a folder: the folders the user granted."""

    granted_folders: list[str]


class FolderEntry(Result):
    name: str
    kind: str
    size: int
    modified: str


class Listing(Result):
    folder: str
    entries: list[FolderEntry]
    note: str | None = None


class Excerpt(Result):
    """Lines of a file's text: `lines` says which ("10-12 of 500")."""

    lines: str
    text: str
    note: str | None = None


class Moved(Result):
    """Items moved or renamed, each journaled before it moved.

    `not_moved` lists a journaled item whose move then failed (something appeared at its
    destination, say): it stayed where it was, and undo leaves it there.
    """

    moved: list[Move]
    not_moved: list[Move] = pydantic.Field(default_factory=list)


class Created(Result):
    created: str


class Written(Result):
    """A file written; undo checks `sha256` and puts `backup` (the replaced text) back."""

    written: str
    sha256: str
    backup: str | None


class TrashedItem(Result):
    """Where one item went: the file inside the trash and its .trashinfo record, if found."""

    original: str
    trash_file: str | None = None
    info_file: str | None = None


class Trashed(Result):
    """Items moved to the trash, each journaled (its name in the trash chosen) before it moved.

    `not_trashed` lists a journaled item whose move into the trash then failed: it stayed
    where it was, and undo leaves it there.
    """

    trashed: list[TrashedItem]
    not_trashed: list[TrashedItem] = pydantic.Field(default_factory=list)
