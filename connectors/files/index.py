"""The file index: one row per file or folder, and an FTS5 table over names and text.

It lives in its own SQLite file (WAL), so a long indexing run never holds up the audit log.
Each thread gets its own connection; only the library's indexer thread writes.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hearth import HearthError, open_sqlite
from hearth.connectors.files.errors import FilesError
from hearth.connectors.files.excerpts import Stemmer, excerpt
from hearth.connectors.files.schema import prepare

log = logging.getLogger(__name__)

_DAMAGED = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
# Letters and digits: the tokenizer splits words at "_" as at any other punctuation.
_WORD = re.compile(r"[^\W_]+")
NO_WORDS = "The query has no words to search for"
# Names weigh more than body text: a file called "budget" beats one that mentions it.
_RANK = "bm25(files_fts, 8.0, 1.0)"
BROAD_MATCHES = 1000


class FileIndexError(HearthError):
    """The file index could not be read or written."""


@dataclass(frozen=True, slots=True)
class Entry:
    """What the index knows about one file or folder."""

    path: Path
    kind: str
    size: int
    mtime: float
    skipped: str | None = None


@dataclass(frozen=True, slots=True)
class Hit:
    path: Path
    kind: str
    size: int
    mtime: float
    snippet: str


@dataclass(frozen=True, slots=True)
class Query:
    text: str = ""
    folder: Path | None = None
    kind: str | None = None
    modified_since: float | None = None
    limit: int = 10


class FileIndex:
    """Names and text of the files in granted folders, searchable with FTS5."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._stemmer = Stemmer()
        try:
            self._prepare()
        except sqlite3.DatabaseError as error:
            if error.sqlite_errorcode not in _DAMAGED:
                raise FileIndexError(f"cannot open the file index {path}: {error}") from None
            # The index only mirrors files on disk, so a damaged one is set aside and rebuilt.
            self.close()
            kept = _set_aside(path)
            log.warning("the file index was damaged (%s); kept it as %s, rebuilding", error, kept)
            self._prepare()

    def _prepare(self) -> None:
        conn = self._connection()
        with conn:
            prepare(conn)

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            # Not durable: it mirrors the files on disk, and a scan brings back what was lost.
            conn = open_sqlite(self.path, durable=False, isolation_level="DEFERRED")
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        conn = self._connection()
        try:
            with conn:
                yield conn
        except sqlite3.DatabaseError as error:
            raise FileIndexError(
                f"the file index {self.path} could not be updated: {error}"
            ) from None

    def put(self, conn: sqlite3.Connection, entry: Entry, text: str = "") -> None:
        """Insert or replace one entry and its text; use inside `writing()`."""
        self._delete_rows(conn, "path = ?", (str(entry.path),))
        cursor = conn.execute(
            "INSERT INTO files (path, name, kind, size, mtime, skipped) VALUES (?, ?, ?, ?, ?, ?)",
            (str(entry.path), entry.path.name, entry.kind, entry.size, entry.mtime, entry.skipped),
        )
        conn.execute(
            "INSERT INTO files_fts (rowid, name, body) VALUES (?, ?, ?)",
            (cursor.lastrowid, _name_words(entry.path.name), text),
        )

    def remove(self, conn: sqlite3.Connection, path: Path) -> int:
        """Drop a path and everything below it; use inside `writing()`."""
        low, high = _subtree(path)
        return self._delete_rows(
            conn, "path = ? OR (path >= ? AND path < ?)", (str(path), low, high)
        )

    def _delete_rows(self, conn: sqlite3.Connection, where: str, params: tuple[str, ...]) -> int:
        ids = [row[0] for row in conn.execute(f"SELECT id FROM files WHERE {where}", params)]
        conn.executemany("DELETE FROM files_fts WHERE rowid = ?", [(i,) for i in ids])
        conn.executemany("DELETE FROM files WHERE id = ?", [(i,) for i in ids])
        return len(ids)

    def known(self, folder: Path) -> dict[Path, tuple[int, float]]:
        """Every indexed path below `folder` with the size and mtime it had when indexed."""
        low, high = _subtree(folder)
        rows = self._connection().execute(
            "SELECT path, size, mtime FROM files WHERE path >= ? AND path < ?", (low, high)
        )
        return {Path(path): (size, mtime) for path, size, mtime in rows}

    def get(self, path: Path) -> Entry | None:
        row = (
            self._connection()
            .execute(
                "SELECT path, kind, size, mtime, skipped FROM files WHERE path = ?", (str(path),)
            )
            .fetchone()
        )
        return None if row is None else Entry(Path(row[0]), row[1], row[2], row[3], row[4])

    def count(self, folder: Path | None = None) -> int:
        if folder is None:
            return int(self._connection().execute("SELECT count(*) FROM files").fetchone()[0])
        return len(self.known(folder))

    def skipped(self, folder: Path | None = None, limit: int = 100) -> list[Entry]:
        """Entries without text (below `folder`, if given), each with the reason."""
        where, params = _skipped_below(folder)
        rows = self._connection().execute(
            "SELECT path, kind, size, mtime, skipped FROM files"
            f" WHERE {where} ORDER BY path LIMIT ?",
            (*params, limit),
        )
        return [Entry(Path(p), k, s, m, r) for p, k, s, m, r in rows]

    def count_skipped(self, folder: Path | None = None) -> int:
        where, params = _skipped_below(folder)
        query = f"SELECT count(*) FROM files WHERE {where}"
        return int(self._connection().execute(query, params).fetchone()[0])

    def search(self, query: Query, roots: Iterable[Path]) -> list[Hit]:
        """Best matches first; with an empty query, the most recently modified entries.

        Files holding every word come first. If none does, files holding any of them are
        ranked instead: a small model often pads a query with words no file contains.
        """
        where, params = _filters(query, list(roots))
        words = _WORD.findall(query.text.lower())
        if not words and query.text.strip():
            raise FilesError(NO_WORDS)
        if not words:
            sql = f"SELECT f.path, f.kind, f.size, f.mtime, '' FROM files f WHERE {where}"
            rows = self._connection().execute(
                sql + " ORDER BY f.mtime DESC LIMIT ?", (*params, query.limit)
            )
            return [Hit(Path(p), k, s, m, snip) for p, k, s, m, snip in rows]
        found = self._best(_terms(words, " AND "), words, where, params, query.limit)
        if not found and len(words) > 1:
            found = self._best(_terms(words, " OR "), words, where, params, query.limit)
        return found

    def _best(
        self, match: str, words: list[str], where: str, params: list[object], limit: int
    ) -> list[Hit]:
        # A word found in most files says little about relevance, and ranking thousands of
        # matches costs more than the rest of the search: the newest of them come first instead.
        conn = self._connection()
        count = conn.execute(
            "SELECT count(*) FROM (SELECT rowid FROM files_fts WHERE files_fts MATCH ? LIMIT ?)",
            (match, BROAD_MATCHES + 1),
        )
        order = _RANK if count.fetchone()[0] <= BROAD_MATCHES else "f.mtime DESC"
        rows = conn.execute(
            "SELECT f.id, f.path, f.kind, f.size, f.mtime"
            " FROM files_fts JOIN files f ON f.id = files_fts.rowid"
            f" WHERE files_fts MATCH ? AND {where} ORDER BY {order} LIMIT ?",
            (match, *params, limit),
        ).fetchall()
        # Excerpts only for the rows kept; FTS5's snippet() would be made for every match.
        stems = self._stemmer.stems(words) if rows else []
        hits = []
        for row_id, path, kind, size, mtime in rows:
            body = conn.execute("SELECT body FROM files_fts WHERE rowid = ?", (row_id,)).fetchone()
            snippet = excerpt(body[0] if body else "", words, stems)
            hits.append(Hit(Path(path), kind, size, mtime, snippet))
        return hits

    def close(self) -> None:
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()


def _set_aside(path: Path) -> Path:
    kept = path.with_name(f"{path.name}.damaged-{int(time.time())}")
    path.replace(kept)
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    return kept


def _filters(query: Query, roots: list[Path]) -> tuple[str, list[object]]:
    clauses: list[str] = []
    params: list[object] = []
    folders = [query.folder] if query.folder is not None else roots
    subtree = []
    for folder in folders:
        low, high = _subtree(folder)
        subtree.append("(f.path >= ? AND f.path < ?)")
        params.extend((low, high))
    clauses.append("(" + " OR ".join(subtree) + ")" if subtree else "0")
    if query.kind:
        clauses.append("f.kind = ?")
        params.append(query.kind)
    if query.modified_since is not None:
        clauses.append("f.mtime >= ?")
        params.append(query.modified_since)
    return " AND ".join(clauses), params


def _skipped_below(folder: Path | None) -> tuple[str, tuple[str, ...]]:
    if folder is None:
        return "skipped IS NOT NULL", ()
    return "skipped IS NOT NULL AND path >= ? AND path < ?", _subtree(folder)


def _subtree(folder: Path) -> tuple[str, str]:
    # Every path below `folder` sorts between "folder/" and "folder0" ('0' follows '/').
    base = str(folder).rstrip("/")
    return base + "/", base + "0"


def _terms(words: list[str], joiner: str) -> str:
    """Each word as a quoted prefix term: the model's words are never FTS syntax."""
    return joiner.join(f'"{word}"*' for word in words)


def _name_words(name: str) -> str:
    # "budget_2024-final.pdf" should match "budget", "2024" and "final".
    return f"{name} {' '.join(_WORD.findall(name.replace('_', ' ')))}"
