"""A connector is an object: its `@tool` methods become tools bound to it, with named undo."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from hearth import Connector, ToolDefinitionError, tool
from hearth.plugins.loading import load_plugins
from hearth.tools import ToolRegistry


@dataclass(frozen=True)
class Shelved:
    shelf: str
    books: tuple[str, ...]


class Library(Connector):
    name = "library"
    title = "Library"
    description = "A shelf of books."
    keywords = ("book", "books")
    scope_kind = "path"

    def __init__(self) -> None:
        super().__init__()
        self.shelves: dict[str, list[str]] = {}

    @tool(effect="write", scope="shelf", preview=lambda a: f"Shelve {a['book']}", undo="unshelve")
    def shelve(self, shelf: str, book: str) -> Shelved:
        """Put a book on a shelf.

        Args:
            shelf: Full path of the shelf.
            book: The book's title.
        """
        self.shelves.setdefault(shelf, []).append(book)
        return Shelved(shelf, tuple(self.shelves[shelf]))

    def unshelve(self, arguments: dict[str, str], result: Shelved) -> str:
        self.shelves[result.shelf].remove(arguments["book"])
        return f"took {arguments['book']} off {result.shelf}"

    @tool(effect="read", name="library.count", keywords=("count",))
    def how_many(self) -> int:
        """Count the books on every shelf."""
        return sum(len(books) for books in self.shelves.values())


def test_methods_become_tools_of_this_object() -> None:
    first, second = Library(), Library()
    names = [t.name for t in first.tools]
    assert names == ["library.shelve", "library.count"]
    shelve = first.tools[0]
    assert (shelve.effect, shelve.scope, shelve.scope_kind) == ("write", "shelf", "path")
    assert shelve.connector == "library" and {"book", "books"} <= set(shelve.keywords)
    assert "self" not in shelve.parameters["properties"]
    shelve.invoke({"shelf": "/a", "book": "Emma"})
    assert first.shelves == {"/a": ["Emma"]} and second.shelves == {}
    assert first.tools[0] is first.tools[0]  # built once per object


def test_undo_gets_the_typed_result_back_from_stored_json() -> None:
    library = Library()
    shelve = library.tools[0]
    result = shelve.invoke({"shelf": "/a", "book": "Emma"})
    stored = json.loads(json.dumps({"shelf": result.shelf, "books": list(result.books)}))
    assert shelve.undo is not None
    assert shelve.undo({"shelf": "/a", "book": "Emma"}, stored) == "took Emma off /a"
    assert library.shelves == {"/a": []}


def test_a_connector_object_registers_through_the_hook() -> None:
    library = Library()

    class Plugin:
        from hearth import hookimpl

        @hookimpl
        def register_connectors(self, register):  # type: ignore[no-untyped-def]
            register(library)

    registry = ToolRegistry()
    report = load_plugins(registry, plugins=[Plugin()], entry_points=False)
    assert report.connectors == [library] and report.failed == []
    assert [t.name for t in registry] == ["library.shelve", "library.count"]


def test_an_undocumented_method_argument_is_refused_when_the_tools_are_built() -> None:
    class Broken(Connector):
        name = "broken"

        @tool(effect="read")
        def look(self, where: str) -> str:
            """Look somewhere."""
            return where

    with pytest.raises(ToolDefinitionError, match="'where' has no description"):
        _ = Broken().tools


def test_an_undo_naming_no_method_is_refused_as_the_class_is_made() -> None:
    with pytest.raises(ToolDefinitionError, match="undo names no method 'put_back'"):

        class Careless(Connector):
            name = "careless"

            @tool(effect="write", undo="put_back")
            def take(self) -> str:
                """Take something."""
                return "taken"
