"""How a typed result reads on its card: its own `summary()`, else a generic reading by type."""

from __future__ import annotations

from dataclasses import dataclass

from hearth import ToolResult, list_summary, summary_of
from tests.app.agent.shelf import BOOKS, Book, Books


class Hit(ToolResult):
    path: str
    size: int


class Found(ToolResult):
    files: list[Hit]
    note: str | None = None


@dataclass
class Moved:
    moved: int
    folder: str


class Titled(ToolResult):
    summary: str  # a field of that name is a value, not the protocol


def test_a_type_s_own_summary_is_the_card_s_line() -> None:
    assert summary_of(BOOKS) == "60 results: a.md, b.txt, c.pdf, …"
    assert summary_of(BOOKS.paged(2)) == "60 results: a.md, b.txt, c.pdf, …"  # the whole


def test_a_list_reads_as_its_count_and_first_names() -> None:
    assert list_summary([], "result", "results") == "No results."
    assert list_summary(["x"], "result", "results") == "1 result: x"
    assert summary_of(["a", "b", "c"]) == "3 items: a, b, c"
    hits = [Hit(path=f"/d/{n}.md", size=n) for n in range(5)]
    assert summary_of(hits) == "5 items: /d/0.md, /d/1.md, /d/2.md, …"


def test_a_record_with_one_list_reads_as_that_list() -> None:
    found = Found(files=[Hit(path="a.md", size=1), Hit(path="b.md", size=2)], note="indexing")
    assert summary_of(found) == "2 files: a.md, b.md"
    assert summary_of(Found(files=[Hit(path="a.md", size=1)])) == "1 file: a.md"
    assert summary_of({"entries": []}) == "No entries."


def test_any_other_record_reads_as_its_values_and_text_as_its_first_lines() -> None:
    assert summary_of(Moved(3, "Old")) == "moved: 3, folder: Old"
    assert summary_of(Titled(summary="hello")) == "summary: hello"
    assert summary_of("one\n\ntwo\nthree\nfour") == "one\ntwo\nthree\n…"
    assert summary_of(None) == "" and summary_of(42) == "42"


def test_every_outside_string_is_escaped_and_long_names_are_cut() -> None:
    spoof = "invoice\u202efdp.exe"
    assert summary_of([spoof]) == "1 item: invoice\\u202efdp.exe"
    assert summary_of(Books(results=[Book(name=spoof, shelf="", blurb="")])) == (
        "1 result: invoice\\u202efdp.exe"
    )
    assert summary_of("\x1b[2Jgone") == "\\x1b[2Jgone"
    (line,) = summary_of(["x" * 500]).split(": ")[1:]
    assert len(line) == 60 and line.endswith("…")
