"""The file tools' results word themselves for their cards: count first, then a few names."""

from __future__ import annotations

from hearth import summary_of
from hearth.connectors.files.results import (
    Created,
    Excerpt,
    FolderEntry,
    FoundFile,
    GrantedFolders,
    Listing,
    Moved,
    SearchResults,
    Trashed,
    TrashedItem,
    Written,
)


def found(path: str) -> FoundFile:
    return FoundFile(path=path, kind="md", size=1, modified="2026-01-01")


def test_a_search_reads_as_its_count_and_first_file_names() -> None:
    paths = ["/d/a.md", "/d/b.txt", "/d/c.pdf", *(f"/d/{n}.md" for n in range(57))]
    assert summary_of(SearchResults(results=[found(p) for p in paths])) == (
        "60 results: a.md, b.txt, c.pdf, …"
    )
    assert summary_of(SearchResults(results=[])) == "No results."
    assert summary_of(SearchResults(results=[found("/d/x\\u202efdp.exe")])) == (
        "1 result: x\\u202efdp.exe"
    )


def test_listings_reads_and_changes_say_what_they_are() -> None:
    entry = FolderEntry(name="todo.md", kind="md", size=3, modified="2026-01-01")
    assert summary_of(Listing(folder="/d", entries=[entry])) == "1 entry: todo.md"
    assert summary_of(GrantedFolders(granted_folders=["/home/u/Documents"])) == (
        "1 granted folder: /home/u/Documents"
    )
    assert summary_of(Excerpt(lines="1-3 of 10", text="x\n\ny")) == "Read lines 1-3 of 10:\nx\ny"
    assert summary_of(Excerpt(lines="0 of 0", text="")) == "Read lines 0 of 0."
    moved = Moved(
        moved=[{"from": "/d/a.md", "to": "/o/a.md"}, {"from": "/d/b.md", "to": "/o/b.md"}],
        not_moved=[{"from": "/d/c.md", "to": "/o/c.md"}],
    )
    assert summary_of(moved) == "Moved 2 items: a.md, b.md\nNot moved: 1 item: c.md"
    trashed = Trashed(trashed=[TrashedItem(original="/d/old.txt")])
    assert summary_of(trashed) == "Trashed 1 item: old.txt"
    assert summary_of(Created(created="/d/new")) == "Created /d/new"
    assert summary_of(Written(written="/d/n.md", sha256="0", backup=None)) == "Wrote /d/n.md"
