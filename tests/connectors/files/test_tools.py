"""The file tools on a real folder: what they return, what they change, what they refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth import Tool
from hearth.connectors.files import FileLibrary, FilesError
from hearth.connectors.files.results import Excerpt, Listing, Moved, SearchResults
from hearth.connectors.files.roots import real_root
from tests.connectors.files.conftest import call


@pytest.fixture
def indexed(library: FileLibrary, documents: Path) -> FileLibrary:
    for root in library.roots():
        library.scanner.scan(root)
    return library


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("quarterly budget", "notes.txt"),
        ("heron", "plan.md"),
        ("kroner", "invoice.pdf"),
        ("radiator", "letter.docx"),
        ("invoice", "invoice.pdf"),
        ("budg", "notes.txt"),
        ("search my files for the heron plan", "plan.md"),
    ],
)
def test_search_finds_names_and_text_in_every_kind(
    tools: dict[str, Tool], indexed: FileLibrary, query: str, name: str
) -> None:
    results = call(tools, "files.search", query=query)["results"]
    assert results, f"nothing found for {query!r}"
    assert Path(results[0]["path"]).name == name


def test_search_filters(tools: dict[str, Tool], indexed: FileLibrary, documents: Path) -> None:
    assert [
        Path(r["path"]).name for r in call(tools, "files.search", query="", kind="pdf")["results"]
    ] == ["invoice.pdf"]
    inside = call(tools, "files.search", query="heron", folder=str(documents / "projects"))
    assert len(inside["results"]) == 1
    assert call(tools, "files.search", query="budget", modified_since="2999-01-01")["results"] == []
    # Model text is never FTS syntax: quotes, operators and stars are just characters.
    for nasty in ['"unbalanced', "budget OR *", "NEAR(a b)", "col:budget", "-budget"]:
        call(tools, "files.search", query=nasty)


def test_list_shows_granted_folders_then_contents(
    tools: dict[str, Tool], library: FileLibrary, documents: Path
) -> None:
    assert call(tools, "files.list") == {"granted_folders": [str(real_root(documents))]}
    (documents / ".hidden").write_text("x")
    listing = call(tools, "files.list", folder=str(documents))
    names = [entry["name"] for entry in listing["entries"]]
    assert names == ["invoice.pdf", "letter.docx", "notes.txt", "projects"]


def test_read_lines_and_pdf_pages(tools: dict[str, Tool], documents: Path) -> None:
    (documents / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 501)))
    excerpt = call(
        tools, "files.read", path=str(documents / "long.txt"), first_line=10, max_lines=3
    )
    assert excerpt["text"] == "line 10\nline 11\nline 12"
    assert excerpt["lines"] == "10-12 of 500"
    from tests.connectors.files.samples import make_pdf

    make_pdf(documents / "two-pages.pdf", ["First page text", "Second page text"])
    page = call(tools, "files.read", path=str(documents / "two-pages.pdf"), page=2)
    assert "Second page" in page["text"] and "First" not in page["text"]
    with pytest.raises(FilesError, match="2 pages"):
        call(tools, "files.read", path=str(documents / "two-pages.pdf"), page=3)


def test_read_is_capped(tools: dict[str, Tool], documents: Path) -> None:
    (documents / "wide.txt").write_text("x" * 50_000 + "\n")
    excerpt = call(tools, "files.read", path=str(documents / "wide.txt"))
    assert len(excerpt["text"]) <= 6000 and "note" in excerpt


def test_move_rename_create_write(tools: dict[str, Tool], documents: Path) -> None:
    call(tools, "files.create_folder", path=str(documents / "archive"))
    moved = call(
        tools,
        "files.move",
        sources=[str(documents / "notes.txt"), str(documents / "invoice.pdf")],
        destination=str(documents / "archive"),
    )
    assert len(moved["moved"]) == 2
    assert (documents / "archive" / "invoice.pdf").exists()
    call(
        tools,
        "files.rename",
        path=str(documents / "archive" / "notes.txt"),
        new_name="budget-notes.txt",
    )
    assert (documents / "archive" / "budget-notes.txt").exists()
    written = call(tools, "files.write_text", path=str(documents / "todo.md"), text="- call Bo")
    assert (documents / "todo.md").read_text() == "- call Bo"
    assert written["backup"] is None


def test_nothing_is_ever_replaced(tools: dict[str, Tool], documents: Path) -> None:
    (documents / "projects" / "notes.txt").write_text("another notes file")
    with pytest.raises(FilesError, match="already exists"):
        call(
            tools,
            "files.move",
            sources=[str(documents / "notes.txt")],
            destination=str(documents / "projects"),
        )
    with pytest.raises(FilesError, match="already exists"):
        call(tools, "files.rename", path=str(documents / "notes.txt"), new_name="letter.docx")
    with pytest.raises(FilesError, match="already exists"):
        call(tools, "files.write_text", path=str(documents / "notes.txt"), text="gone?")
    with pytest.raises(FilesError, match="turned off"):
        call(
            tools,
            "files.write_text",
            path=str(documents / "notes.txt"),
            text="gone?",
            overwrite=True,
        )
    assert (documents / "notes.txt").read_text().startswith("Remember")
    with pytest.raises(FilesError, match="into itself"):
        call(
            tools,
            "files.move",
            sources=[str(documents / "projects")],
            destination=str(documents / "projects"),
        )


def test_previews_say_what_will_happen(tools: dict[str, Tool], documents: Path) -> None:
    sources = [str(documents / f"photo-{n}.jpg") for n in range(14)]
    preview = tools["files.move"].describe(
        {"sources": sources, "destination": str(documents / "photos")}
    )
    assert preview.startswith(f"Move 14 items from {documents} to {documents / 'photos'}: ")
    assert "photo-0.jpg" in preview and "and 9 more" in preview
    trash = tools["files.trash"].describe({"paths": [str(documents / "notes.txt")]})
    assert trash == f"Move 1 item from {documents} to the trash: notes.txt"
    write = tools["files.write_text"].describe({"path": "/x/a.txt", "text": "hello"})
    assert write == "Create /x/a.txt:\nhello"


def test_trash_uses_the_os_trash(tools: dict[str, Tool], documents: Path) -> None:
    result = call(tools, "files.trash", paths=[str(documents / "notes.txt")])
    assert not (documents / "notes.txt").exists()
    trashed = result["trashed"][0]
    assert trashed["trash_file"] and Path(trashed["trash_file"]).read_text().startswith("Remember")
    assert Path(trashed["info_file"]).read_text().startswith("[Trash Info]")


def test_results_are_typed_and_keep_the_json_the_model_reads(
    tools: dict[str, Tool], indexed: FileLibrary, documents: Path
) -> None:
    found = tools["files.search"].invoke({"query": "heron"})
    assert isinstance(found, SearchResults) and found.results[0].snippet
    [hit] = call(tools, "files.search", query="heron")["results"]
    assert set(hit) == {"path", "kind", "size", "modified", "snippet"}
    # Optional notes and empty snippets are left out rather than shown as null.
    newest = call(tools, "files.search", query="", kind="pdf")
    assert set(newest) == {"results"} and set(newest["results"][0]) == {
        "path",
        "kind",
        "size",
        "modified",
    }
    assert isinstance(tools["files.list"].invoke({"folder": str(documents)}), Listing)
    listing = call(tools, "files.list", folder=str(documents))
    assert set(listing) == {"folder", "entries"}
    assert set(listing["entries"][0]) == {"name", "kind", "size", "modified"}
    assert isinstance(tools["files.read"].invoke({"path": str(documents / "notes.txt")}), Excerpt)
    assert set(call(tools, "files.read", path=str(documents / "notes.txt"))) == {"lines", "text"}
    renamed = tools["files.rename"].invoke(
        {"path": str(documents / "notes.txt"), "new_name": "a.txt"}
    )
    assert isinstance(renamed, Moved)
    folder = call(tools, "files.create_folder", path=str(documents / "new"))
    assert folder == {"created": str(real_root(documents) / "new")}
    written = call(tools, "files.write_text", path=str(documents / "b.txt"), text="b")
    assert set(written) == {"written", "sha256", "backup"}
    moved = call(
        tools, "files.move", sources=[str(documents / "b.txt")], destination=str(folder["created"])
    )
    assert moved == {
        "moved": [{"from": str(real_root(documents) / "b.txt"), "to": folder["created"] + "/b.txt"}]
    }
    [trashed] = call(tools, "files.trash", paths=[folder["created"]])["trashed"]
    assert set(trashed) == {"original", "trash_file", "info_file"}


def test_search_without_words_tells_the_model(tools: dict[str, Tool], indexed: FileLibrary) -> None:
    for query in ("?!", "...", "-"):
        with pytest.raises(FilesError, match="The query has no words to search for"):
            call(tools, "files.search", query=query)
    assert call(tools, "files.search", query="budgets")["results"][0]["path"].endswith("notes.txt")
