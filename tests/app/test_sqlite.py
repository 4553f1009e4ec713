"""Every store opens SQLite through `open_sqlite`, with the durability it chose and one timeout."""

from __future__ import annotations

import ast
import importlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hearth import sqlite
from hearth.connectors.calendar.cache_file import CacheFile
from hearth.connectors.calendar.changes import ChangeLog
from hearth.connectors.files.excerpts import Stemmer
from hearth.connectors.files.index import FileIndex
from hearth.connectors.mail.cache import MailCache
from hearth.connectors.mail.outbox import Outbox
from hearth.store import open_database

ROOT = Path(__file__).resolve().parents[2]
FULL, NORMAL = 2, 1  # what PRAGMA synchronous answers
PRAGMAS = ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")


@dataclass
class Opened:
    """A connection a store opened, and its pragmas as open_sqlite left them."""

    module: str
    path: str
    conn: sqlite3.Connection
    at_open: dict[str, object]


def pragmas(conn: sqlite3.Connection) -> dict[str, object]:
    return {name: conn.execute(f"PRAGMA {name}").fetchone()[0] for name in PRAGMAS}


def expected(journal: str, synchronous: int) -> dict[str, object]:
    timeout_ms = int(sqlite.BUSY_TIMEOUT_S * 1000)
    return dict(zip(PRAGMAS, (journal, synchronous, timeout_ms, 1), strict=True))


STORES: list[tuple[str, Callable[[Path], Any], dict[str, object]]] = [
    ("hearth.store.db", lambda d: open_database(d / "hearth.db"), expected("wal", FULL)),
    ("hearth.connectors.mail.outbox", lambda d: Outbox(d / "outbox"), expected("wal", FULL)),
    ("hearth.connectors.mail.cache", lambda d: MailCache(d / "mail"), expected("wal", NORMAL)),
    ("hearth.connectors.files.index", lambda d: FileIndex(d / "index"), expected("wal", NORMAL)),
    ("hearth.connectors.files.excerpts", lambda d: Stemmer(), expected("memory", NORMAL)),
    ("hearth.connectors.calendar.changes", lambda d: ChangeLog(d / "ch"), expected("wal", FULL)),
    (
        "hearth.connectors.calendar.cache_file",
        lambda d: CacheFile(d / "calendar", now=0.0),
        expected("wal", FULL),
    ),
]


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Opened]:
    """Every connection the stores open from now on, recorded as they open it."""
    seen: list[Opened] = []
    for module, _, _ in STORES:

        def spy(path: Path | str, *, _module: str = module, **options: Any) -> sqlite3.Connection:
            conn = sqlite.open_sqlite(path, **options)
            seen.append(Opened(_module, str(path), conn, pragmas(conn)))
            return conn

        monkeypatch.setattr(importlib.import_module(module), "open_sqlite", spy)
    return seen


@pytest.mark.parametrize(
    ("module", "make", "wanted"), STORES, ids=[module.rsplit(".", 1)[1] for module, _, _ in STORES]
)
def test_each_store_connection_has_its_durability(
    tmp_path: Path,
    opened: list[Opened],
    module: str,
    make: Callable[[Path], Any],
    wanted: dict[str, object],
) -> None:
    store = make(tmp_path)
    try:
        mine = [found for found in opened if found.module == module]
        assert mine, f"{module} opened no connection"
        for found in mine:  # read on the store's own connection, after it set itself up
            assert pragmas(found.conn) == wanted, found.path
    finally:
        getattr(store, "close", lambda: None)()


def test_a_set_aside_calendar_cache_is_read_through_the_opener(
    tmp_path: Path, opened: list[Opened]
) -> None:
    path = tmp_path / "calendar"
    CacheFile(path, now=0.0).close()
    with sqlite.open_sqlite(path, durable=False) as conn:
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    reopened = CacheFile(path, now=1.0)
    reopened.close()
    assert (
        reopened.repaired is not None and "0 open queued change(s) were kept" in reopened.repaired
    )
    [salvage] = [found for found in opened if found.path.endswith("calendar.damaged-1")]
    assert salvage.at_open == expected("wal", NORMAL)


def test_a_locked_database_waits_for_the_lock_instead_of_failing(tmp_path: Path) -> None:
    with open_database(tmp_path / "hearth.db") as db:
        db.migrate("notes", [["CREATE TABLE notes (body TEXT)"]])
        other = sqlite.open_sqlite(db.path, durable=True)
        other.execute("BEGIN IMMEDIATE")  # another process's writer holds the lock
        release = threading.Timer(0.5, other.execute, ("COMMIT",))
        started = time.monotonic()
        release.start()
        try:
            with db.transaction() as conn:
                conn.execute("INSERT INTO notes VALUES ('after the wait')")
        finally:
            release.join()
            other.close()
        assert time.monotonic() - started >= 0.4
        assert [tuple(row) for row in db.query("SELECT body FROM notes")] == [("after the wait",)]


def test_a_file_that_is_not_a_database_fails_at_open(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database " * 100)
    with pytest.raises(sqlite3.DatabaseError, match="not a database"):
        sqlite.open_sqlite(path, durable=False)


def sqlite_openers() -> Iterator[str]:
    """Where code in app/, connectors/ or ui/ reaches for sqlite3.connect."""
    for folder in ("app", "connectors", "ui"):
        for file in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
                if _connects(node):
                    yield f"{file.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


def _connects(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):  # sqlite3.connect(...)
        return (
            node.attr == "connect"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sqlite3"
        )
    if isinstance(node, ast.ImportFrom):  # from sqlite3 import connect
        return node.module == "sqlite3" and any(alias.name == "connect" for alias in node.names)
    return False


def test_only_open_sqlite_calls_sqlite3_connect() -> None:
    # A ninth opener would choose its own durability and timeout: it must use open_sqlite.
    found = list(sqlite_openers())
    assert [place for place in found if not place.startswith("app/sqlite.py:")] == []
    assert len(found) == 1
