"""The read-only file tools: search the index, list a folder, read an excerpt.

Folders are listed and files read through descriptors reached from the grant without following
a link, so what is read is what was checked.
"""

from __future__ import annotations

import itertools
import os
import stat
from datetime import datetime
from pathlib import Path
from typing import Literal

from hearth import counted, tool
from hearth.connectors.files.errors import FilesError, PathRefused
from hearth.connectors.files.extract import kind_of
from hearth.connectors.files.fsops import folder_of, hard_links, open_file, parent_of
from hearth.connectors.files.index import Hit, Query
from hearth.connectors.files.library import FileLibrary
from hearth.connectors.files.names import shown
from hearth.connectors.files.results import (
    Excerpt,
    FolderEntry,
    FoundFile,
    GrantedFolders,
    Listing,
    SearchResults,
)
from hearth.connectors.files.roots import locate

Kind = Literal["txt", "md", "pdf", "docx", "other", "folder"]
READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
READ_CHARS = 6000
LIST_LIMIT = 200


class ReadingTools:
    """The files connector's tools that only look; every path is checked against the roots."""

    library: FileLibrary

    @tool(effect="read", scope="folder", keywords=("find", "search"), check="check_folder")
    def search(
        self,
        query: str,
        folder: str | None = None,
        kind: Kind | None = None,
        modified_since: str | None = None,
        limit: int = 10,
        page: int = 1,
    ) -> SearchResults:
        """Search names and text of files in the folders the user granted.

        Args:
            query: Words to look for in file names and contents.
            folder: Only search inside this folder (a full path).
            kind: Only this kind of file.
            modified_since: Only files changed on or after this date (YYYY-MM-DD).
            limit: How many results at most (1-50).
            page: Which page of a long result to read (1 is the first).
        """
        where = None
        if folder:
            spot = locate(folder, self.library.grants())
            with folder_of(spot):  # a folder reached without a link, in a grant still in place
                where = spot.path
        wanted = Query(query, where, kind, _since(modified_since), max(1, min(limit, 50)))
        found = self.library.index.search(wanted, self.library.roots())
        status = self.library.status()
        note = None
        if status.state == "scanning":
            note = f"still indexing ({status.done} of {counted(status.total, 'file')} read)"
        return SearchResults(results=[_found(hit) for hit in found], note=note).paged(page)

    @tool(effect="read", scope="folder", keywords=("list", "contents"), check="check_folder")
    def list(self, folder: str | None = None, page: int = 1) -> GrantedFolders | Listing:
        """List a folder's files and subfolders; with no folder, list the granted folders.

        Args:
            folder: Full path of the folder to list; leave empty for the granted folders.
            page: Which page of a long result to read (1 is the first).
        """
        if not folder:
            return GrantedFolders(granted_folders=[shown(str(r)) for r in self.library.roots()])
        spot = locate(folder, self.library.grants())
        with folder_of(spot) as descriptor:
            return _listing(descriptor, spot.path).paged(page)

    @tool(effect="read", scope="path", keywords=("read", "open", "show"), check="check_path")
    def read(
        self, path: str, first_line: int = 1, max_lines: int = 200, page: int | None = None
    ) -> Excerpt:
        """Read the text of a file: a range of lines, or one page of a PDF.

        Args:
            path: Full path of the file.
            first_line: Line to start from (1 is the first line).
            max_lines: How many lines at most.
            page: For a PDF, the page to read (1 is the first page).
        """
        spot = locate(path, self.library.grants())
        if spot.is_root:
            raise PathRefused(f"{shown(path)} is a folder; use files.list")
        with parent_of(spot) as folder:
            descriptor = open_file(folder, spot, READ)  # refuses a file with other names
        try:
            if stat.S_ISDIR(os.fstat(descriptor).st_mode):
                raise PathRefused(f"{shown(path)} is a folder; use files.list")
            # Read from the descriptor opened above: the path is not walked again.
            extracted = self.library.extractor.extract(spot.path, descriptor)
        finally:
            os.close(descriptor)
        if extracted.skipped:
            raise FilesError(f"cannot read {shown(spot.name)}: {extracted.skipped}")
        text = extracted.text
        if page is not None:
            text = _page(text, page, spot.path)
        return _excerpt(text, max(1, first_line), max(1, min(max_lines, 1000)))


def _found(hit: Hit) -> FoundFile:
    return FoundFile(
        path=shown(str(hit.path)),
        kind=hit.kind,
        size=hit.size,
        modified=_when(hit.mtime),
        snippet=hit.snippet or None,
    )


def _listing(folder: int, path: Path) -> Listing:
    with os.scandir(folder) as scan:
        visible = sorted((e for e in scan if not e.name.startswith(".")), key=lambda e: e.name)
    entries = []
    linked = 0
    for entry in itertools.islice(visible, LIST_LIMIT):
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            continue
        if hard_links(info) is not None:  # left out, like a link: it may be a file outside
            linked += 1
            continue
        kind = "folder" if stat.S_ISDIR(info.st_mode) else kind_of(Path(entry.name))
        entries.append(
            FolderEntry(
                name=shown(entry.name), kind=kind, size=info.st_size, modified=_when(info.st_mtime)
            )
        )
    return Listing(folder=shown(str(path)), entries=entries, note=_note(len(visible), linked))


def _note(total: int, linked: int) -> str | None:
    """What a listing leaves out: entries past the limit, and files with other names."""
    notes = []
    if total > LIST_LIMIT:
        notes.append(f"showing {LIST_LIMIT} of {total} entries")
    if linked:
        notes.append(
            f"{counted(linked, 'file')} with more than one name (hard links) not shown; Hearth "
            "does not open such files, as another name may be outside your granted folders"
        )
    return "; ".join(notes) or None


def _excerpt(text: str, first_line: int, max_lines: int) -> Excerpt:
    lines = text.splitlines()
    chosen = lines[first_line - 1 : first_line - 1 + max_lines]
    body = "\n".join(chosen)
    note = None
    if len(body) > READ_CHARS:
        note = f"cut at {READ_CHARS} characters; read fewer lines at a time"
    return Excerpt(
        lines=f"{first_line}-{first_line + len(chosen) - 1} of {len(lines)}",
        text=body[:READ_CHARS],
        note=note,
    )


def _page(text: str, page: int, path: Path) -> str:
    pages = text.split("\f")
    name = shown(path.name)
    if kind_of(path) != "pdf" or (len(pages) < 2 and page != 1):
        raise FilesError(f"{name} has no pages to choose from; read by lines instead")
    if not 1 <= page <= len(pages):
        raise FilesError(f"{name} has {len(pages)} pages; page {page} does not exist")
    return pages[page - 1]


def _since(text: str | None) -> float | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise FilesError(f"modified_since {text!r} is not a date like 2026-11-29") from None
    return moment.timestamp()


def _when(mtime: float) -> str:
    return datetime.fromtimestamp(mtime).isoformat(timespec="minutes")
