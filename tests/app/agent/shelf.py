"""A shelf of 60 books and the tools that find them: a result long enough to be paged."""

from __future__ import annotations

from hearth import ToolResult, list_summary, tool
from tests.app.agent.kit import World

NAMES = ["a.md", "b.txt", "c.pdf", *(f"book-{n:02d}.txt" for n in range(4, 61))]


class Book(ToolResult):
    name: str
    shelf: str
    blurb: str


class Books(ToolResult):
    results: list[Book]
    note: str | None = None

    def summary(self) -> str:
        return list_summary([book.name for book in self.results], "result", "results")


BOOKS = Books(
    results=[
        Book(name=name, shelf=f"shelf {n % 7}", blurb=f"A story, the {n}th of {len(NAMES)}.")
        for n, name in enumerate(NAMES, start=1)
    ]
)


@tool(effect="read", name="shelf.search", keywords=("shelf", "book", "books"))
def shelf_search(words: str, page: int = 1) -> Books:
    """Find books on the shelf.

    Args:
        words: Words to look for.
        page: Which page of a long result to read (1 is the first).
    """
    return BOOKS.paged(page)


@tool(effect="read", name="shelf.all", keywords=("shelf", "book", "books"))
def shelf_all() -> Books:
    """Every book on the shelf, in one result that does not page."""
    return BOOKS


def shelf_world() -> World:
    """The agent's test world with the shelf's two tools added."""
    world = World()
    world.registry.add(shelf_search)
    world.registry.add(shelf_all)
    return world
