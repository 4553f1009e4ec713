"""The read-only file tools: search the index, list a folder, read an excerpt."""

from __future__ import annotations

import itertools
import os
import stat
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from hearth import Tool, make_tool
from hearth.connectors.files.extract import kind_of
from hearth.connectors.files.index import Query
from hearth.connectors.files.library import FileLibrary
from hearth.connectors.files.roots import FilesError, PathRefused, resolve_inside

Kind = Literal["txt", "md", "pdf", "docx", "other", "folder"]
READ_CHARS = 6000
LIST_LIMIT = 200
KEYWORDS = ("file", "files", "folder", "document", "documents", "pdf", "docx", "note", "notes")


def reading_tools(library: FileLibrary) -> list[Tool]:
    def files_search(
        query: str,
        folder: str | None = None,
        kind: Kind | None = None,
        modified_since: str | None = None,
        limit: int = 10,
    ) -> dict[str, Any]:
        """Search names and text of files in the folders the user granted.

        Args:
            query: Words to look for in file names and contents.
            folder: Only search inside this folder (a full path).
            kind: Only this kind of file.
            modified_since: Only files changed on or after this date (YYYY-MM-DD).
            limit: How many results at most (1-50).
        """
        roots = library.roots()
        where = resolve_inside(folder, roots) if folder else None
        found = library.index.search(
            Query(query, where, kind, _since(modified_since), max(1, min(limit, 50))), roots
        )
        status = library.status()
        result: dict[str, Any] = {"results": [_hit(hit) for hit in found]}
        if status.state == "scanning":
            result["note"] = f"still indexing ({status.done} of {status.total} files read)"
        return result

    def files_list(folder: str | None = None) -> dict[str, Any]:
        """List a folder's files and subfolders; with no folder, list the granted folders.

        Args:
            folder: Full path of the folder to list; leave empty for the granted folders.
        """
        roots = library.roots()
        if not folder:
            return {"granted_folders": [str(root) for root in roots]}
        where = resolve_inside(folder, roots)
        if not where.is_dir():
            raise PathRefused(f"{folder} is a file, not a folder; use files.read")
        return _listing(where)

    def files_read(
        path: str, first_line: int = 1, max_lines: int = 200, page: int | None = None
    ) -> dict[str, Any]:
        """Read the text of a file: a range of lines, or one page of a PDF.

        Args:
            path: Full path of the file.
            first_line: Line to start from (1 is the first line).
            max_lines: How many lines at most.
            page: For a PDF, the page to read (1 is the first page).
        """
        target = resolve_inside(path, library.roots())
        if target.is_dir():
            raise PathRefused(f"{path} is a folder; use files.list")
        extracted = library.extractor.extract(target)
        if extracted.skipped:
            raise FilesError(f"cannot read {target.name}: {extracted.skipped}")
        text = extracted.text
        if page is not None:
            text = _page(text, page, target)
        return _excerpt(text, max(1, first_line), max(1, min(max_lines, 1000)))

    search = make_tool(
        files_search,
        effect="read",
        scope="folder",
        scope_kind="path",
        name="files.search",
        keywords=(*KEYWORDS, "find", "search"),
    )
    listing = make_tool(
        files_list,
        effect="read",
        scope="folder",
        scope_kind="path",
        name="files.list",
        keywords=(*KEYWORDS, "list", "contents"),
    )
    read = make_tool(
        files_read,
        effect="read",
        scope="path",
        scope_kind="path",
        name="files.read",
        keywords=(*KEYWORDS, "read", "open", "show"),
    )
    return [search, listing, read]


def _hit(hit: Any) -> dict[str, Any]:
    found: dict[str, Any] = {
        "path": str(hit.path),
        "kind": hit.kind,
        "size": hit.size,
        "modified": _when(hit.mtime),
    }
    if hit.snippet:
        found["snippet"] = hit.snippet
    return found


def _listing(folder: Path) -> dict[str, Any]:
    with os.scandir(folder) as scan:
        visible = sorted((e for e in scan if not e.name.startswith(".")), key=lambda e: e.name)
    entries = []
    for entry in itertools.islice(visible, LIST_LIMIT):
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            continue
        kind = "folder" if stat.S_ISDIR(info.st_mode) else kind_of(Path(entry.path))
        entries.append(
            {
                "name": entry.name,
                "kind": kind,
                "size": info.st_size,
                "modified": _when(info.st_mtime),
            }
        )
    listing: dict[str, Any] = {"folder": str(folder), "entries": entries}
    if len(visible) > LIST_LIMIT:
        listing["note"] = f"showing {LIST_LIMIT} of {len(visible)} entries"
    return listing


def _excerpt(text: str, first_line: int, max_lines: int) -> dict[str, Any]:
    lines = text.splitlines()
    chosen = lines[first_line - 1 : first_line - 1 + max_lines]
    body = "\n".join(chosen)
    excerpt: dict[str, Any] = {
        "lines": f"{first_line}-{first_line + len(chosen) - 1} of {len(lines)}",
        "text": body[:READ_CHARS],
    }
    if len(body) > READ_CHARS:
        excerpt["note"] = f"cut at {READ_CHARS} characters; read fewer lines at a time"
    return excerpt


def _page(text: str, page: int, path: Path) -> str:
    pages = text.split("\f")
    if kind_of(path) != "pdf" or (len(pages) < 2 and page != 1):
        raise FilesError(f"{path.name} has no pages to choose from; read by lines instead")
    if not 1 <= page <= len(pages):
        raise FilesError(f"{path.name} has {len(pages)} pages; page {page} does not exist")
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
