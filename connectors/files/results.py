"""What the file tools return: typed results that serialise to the JSON the model reads.

An optional `note` or `snippet` (or an empty `not_moved`, `not_trashed`) is left out of the
JSON when there is none, so the model sees only what it can use. Undo receives these types back,
even after a restart read them from disk, or built from a batch's journal (see
`hearth.store.journal`): then only the journaled lists are there, so every other field has a
default. Each result words itself for its card (`summary`), escaped as `hearth.shown` does it.
"""

from __future__ import annotations

from pathlib import PurePath

import pydantic
from typing_extensions import TypedDict

from hearth import ToolResult, list_summary, shown, summary_of

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

    def summary(self) -> str:
        return list_summary([_name(found.path) for found in self.results], "result", "results")


class GrantedFolders(Result):
    """What files.list shows without a folder: the folders the user granted."""

    granted_folders: list[str]

    def summary(self) -> str:
        return list_summary(self.granted_folders, "granted folder", "granted folders")


class FolderEntry(Result):
    name: str
    kind: str
    size: int
    modified: str


class Listing(Result):
    folder: str
    entries: list[FolderEntry]
    note: str | None = None

    def summary(self) -> str:
        return list_summary([entry.name for entry in self.entries], "entry", "entries")


class Excerpt(Result):
    """Lines of a file's text: `lines` says which ("10-12 of 500")."""

    lines: str
    text: str
    note: str | None = None

    def summary(self) -> str:
        read = f"Read lines {shown(self.lines)}"
        return f"{read}:\n{summary_of(self.text)}" if self.text.strip() else f"{read}."


class Moved(Result):
    """Items moved or renamed, each journaled before it moved.

    `not_moved` lists a journaled item whose move then failed (something appeared at its
    destination, say): it stayed where it was, and undo leaves it there.
    """

    moved: list[Move]
    not_moved: list[Move] = pydantic.Field(default_factory=list)

    def summary(self) -> str:
        left = [move["from"] for move in self.not_moved]
        return _done("Moved", "Not moved", [move["from"] for move in self.moved], left)


class Created(Result):
    created: str

    def summary(self) -> str:
        return f"Created {shown(self.created)}"


class Written(Result):
    """A file written; undo checks `sha256` and puts `backup` (the replaced text) back."""

    written: str
    sha256: str
    backup: str | None

    def summary(self) -> str:
        return f"Wrote {shown(self.written)}"


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

    def summary(self) -> str:
        left = [item.original for item in self.not_trashed]
        return _done("Trashed", "Not trashed", [item.original for item in self.trashed], left)


def _name(path: str) -> str:
    return PurePath(path).name or path


def _done(verb: str, missed: str, done: list[str], left: list[str]) -> str:
    """Reads "Moved 3 items: a.md, b.txt, c.pdf", then a line for the items that stayed."""
    lines = [f"{verb} {list_summary([_name(path) for path in done], 'item', 'items')}"]
    if left:
        lines.append(f"{missed}: {list_summary([_name(path) for path in left], 'item', 'items')}")
    return "\n".join(lines)
