"""The FTS5 index on its own: ranking, broad words, folders, removal."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hearth.connectors.files import FilesError
from hearth.connectors.files.excerpts import Stemmer, excerpt
from hearth.connectors.files.index import BROAD_MATCHES, Entry, FileIndex, Query

# The schema before words were stemmed.
VERSION_2 = (
    "CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, name TEXT NOT NULL,"
    " kind TEXT NOT NULL, size INTEGER NOT NULL, mtime REAL NOT NULL, skipped TEXT)",
    "CREATE VIRTUAL TABLE files_fts USING fts5("
    " name, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')",
)


def fill(index: FileIndex, root: Path, texts: dict[str, tuple[str, float]]) -> None:
    with index.writing() as conn:
        for name, (text, mtime) in texts.items():
            index.put(conn, Entry(root / name, "txt", len(text), mtime), text)


def test_relevant_files_rank_first(tmp_path: Path) -> None:
    index = FileIndex(tmp_path / "index.sqlite3")
    root = tmp_path / "Documents"
    fill(
        index,
        root,
        {
            "budget.txt": ("numbers for next year", 1.0),
            "notes.txt": ("the budget, the budget and the budget again", 2.0),
            "other.txt": ("a budget is mentioned once among many other words here", 3.0),
        },
    )
    names = [hit.path.name for hit in index.search(Query("budget"), [root])]
    assert names[0] == "budget.txt"  # names weigh more than text
    assert set(names) == {"budget.txt", "notes.txt", "other.txt"}


def test_a_word_in_most_files_lists_the_newest_with_an_excerpt(tmp_path: Path) -> None:
    index = FileIndex(tmp_path / "index.sqlite3")
    root = tmp_path / "Documents"
    count = BROAD_MATCHES + 50
    fill(
        index,
        root,
        {
            f"report-{n:04d}.txt": (f"Quarterly report {n}: the Budget was discussed at length.", n)
            for n in range(count)
        },
    )
    hits = index.search(Query("budget", limit=3), [root])
    assert [hit.path.name for hit in hits] == [
        f"report-{n:04d}.txt" for n in (count - 1, count - 2, count - 3)
    ]
    assert "[Budget]" in hits[0].snippet


def test_folder_filter_and_removal(tmp_path: Path) -> None:
    index = FileIndex(tmp_path / "index.sqlite3")
    root = tmp_path / "Documents"
    fill(
        index,
        root,
        {"a/x.txt": ("heron", 1.0), "ab/y.txt": ("heron", 1.0), "b/z.txt": ("heron", 1.0)},
    )
    inside_a = index.search(Query("heron", folder=root / "a"), [root])
    assert [hit.path.name for hit in inside_a] == ["x.txt"]  # "ab" is not inside "a"
    with index.writing() as conn:
        assert index.remove(conn, root / "a") == 1
    assert {hit.path.name for hit in index.search(Query("heron"), [root])} == {"y.txt", "z.txt"}
    assert index.search(Query("heron"), [tmp_path / "elsewhere"]) == []


def test_excerpt_marks_the_first_match() -> None:
    text = "x " * 100 + "the Heronry is open " + "y " * 100
    shown = excerpt(text, ["heron"])
    assert "[Heronry]" in shown and shown.startswith("…") and shown.endswith("…")
    assert excerpt("nothing here", ["heron"]) == ""


def test_excerpt_falls_back_to_the_stems_the_index_matched() -> None:
    words = ["happy", "ponies", "budgets"]
    stems = Stemmer().stems(words)
    assert stems == ["happi", "poni", "budget"]
    assert excerpt("Much happiness.", words, stems) == "Much [happiness]."
    assert excerpt("One pony.", words, stems) == "One [pony]."
    assert excerpt("A budget, budgets.", words, stems) == "A budget, [budgets]."


def test_a_damaged_index_is_set_aside_and_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    path.write_bytes(b"this is not a database, it was overwritten by something" * 100)
    index = FileIndex(path)
    fill(index, tmp_path, {"a.txt": ("heron", 1.0)})
    assert [hit.path.name for hit in index.search(Query("heron"), [tmp_path])] == ["a.txt"]
    [kept] = tmp_path.glob("index.sqlite3.damaged-*")
    assert kept.read_bytes().startswith(b"this is not a database")
    index.close()


def test_an_index_from_another_version_starts_over(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT)")
    old.execute("INSERT INTO files (path) VALUES ('/old/entry')")
    old.commit()
    old.close()
    index = FileIndex(path)
    assert index.count() == 0
    fill(index, tmp_path, {"a.txt": ("heron", 1.0)})
    assert index.count() == 1
    index.close()


def test_words_are_found_by_their_stem(tmp_path: Path) -> None:
    index = FileIndex(tmp_path / "index.sqlite3")
    fill(index, tmp_path, {"plans.txt": ("The budget for the heron survey.", 1.0)})
    for query in ("budgets", "budgeting", "herons", "surveys"):
        [hit] = index.search(Query(query), [tmp_path])
        assert hit.path.name == "plans.txt"
    [hit] = index.search(Query("budgets"), [tmp_path])
    assert hit.snippet == "The [budget] for the heron survey."
    index.close()


def test_an_index_without_stems_is_rebuilt_with_them_and_keeps_its_entries(
    tmp_path: Path,
) -> None:
    path = tmp_path / "index.sqlite3"
    old = sqlite3.connect(path)
    for statement in VERSION_2:
        old.execute(statement)
    old.execute(
        "INSERT INTO files VALUES (7, ?, 'plans.txt', 'txt', 30, 1.0, NULL)",
        (str(tmp_path / "plans.txt"),),
    )
    old.execute(
        "INSERT INTO files_fts (rowid, name, body)"
        " VALUES (7, 'plans.txt', 'The budget for the heron.')"
    )
    old.execute("PRAGMA user_version = 2")
    old.commit()
    old.close()
    index = FileIndex(path)
    assert index.count() == 1
    [hit] = index.search(Query("budgets"), [tmp_path])
    assert hit.path.name == "plans.txt" and "[budget]" in hit.snippet
    index.close()
    assert FileIndex(path).count() == 1  # rebuilt once; opened again, it is as it was


@pytest.mark.parametrize("query", ["?!", "...", "-", "_", " - ", '"', "*", "^", ":"])
def test_a_query_without_words_is_refused(tmp_path: Path, query: str) -> None:
    index = FileIndex(tmp_path / "index.sqlite3")
    fill(index, tmp_path, {"a.txt": ("heron", 1.0)})
    with pytest.raises(FilesError, match="The query has no words to search for"):
        index.search(Query(query), [tmp_path])
    index.close()


@pytest.mark.parametrize(
    "query",
    [
        '"heron',
        'heron"',
        "heron*",
        "body:heron",
        "name : heron",
        "^heron",
        "heron AND",
        "AND heron",
        "heron OR NOT",
        "NEAR(heron, 2)",
        "heron + -wing",
        "(heron",
        "{name} heron",
        "heron_wing",
    ],
)
def test_search_syntax_in_a_query_is_only_words(tmp_path: Path, query: str) -> None:
    index = FileIndex(tmp_path / "index.sqlite3")
    fill(index, tmp_path, {"a.txt": ("a grey heron", 1.0), "b.txt": ("a wagtail", 2.0)})
    assert [hit.path.name for hit in index.search(Query(query), [tmp_path])] == ["a.txt"]
    index.close()
