"""The calendar cache's SQLite file: its schema, connections, and what happens when it is damaged.

One file in WAL mode. A file of an older schema version is migrated in place, in one transaction.
A damaged file, or one written by a newer version, is set aside with its WAL and a fresh one made;
the queue's open rows are copied over when they can still be read, and `repaired` says what
became of them either way. The tables' meaning and their rows are `cache.CalendarCache`'s
business.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hearth import open_sqlite
from hearth.connectors.calendar.errors import CalendarError

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
# The first schema, then each migration in turn: a new file is made the same way as an old one is
# brought up to date, so the two cannot drift apart.
_FIRST_SCHEMA = (
    "CREATE TABLE calendars (name TEXT PRIMARY KEY COLLATE NOCASE, source TEXT NOT NULL,"
    " location TEXT NOT NULL, writable INTEGER NOT NULL, color TEXT, sync_token TEXT,"
    " synced_at REAL, online INTEGER NOT NULL DEFAULT 1, last_error TEXT)",
    "CREATE TABLE objects (calendar TEXT NOT NULL COLLATE NOCASE, uid TEXT NOT NULL,"
    " href TEXT NOT NULL, etag TEXT NOT NULL, ics TEXT NOT NULL, PRIMARY KEY (calendar, uid))",
    "CREATE TABLE queue (id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " op TEXT NOT NULL CHECK (op IN ('put', 'delete')), calendar TEXT NOT NULL COLLATE NOCASE,"
    " uid TEXT NOT NULL, ics TEXT, expected_etag TEXT,"
    " state TEXT NOT NULL CHECK (state IN ('queued', 'conflict', 'done')), error TEXT,"
    " created_at REAL NOT NULL, result_etag TEXT)",
    "CREATE TABLE problems (calendar TEXT COLLATE NOCASE, location TEXT NOT NULL, line INTEGER,"
    " component TEXT NOT NULL, message TEXT NOT NULL)",
)
_MIGRATIONS = {
    # 1 -> 2: the time-span index (see `timeline`) and a first sync's progress. Objects cached
    # before it span all time and are expanded at query time until the next sync indexes them.
    1: (
        "ALTER TABLE calendars ADD COLUMN sync_done INTEGER",
        "ALTER TABLE calendars ADD COLUMN sync_total INTEGER",
        "ALTER TABLE objects ADD COLUMN span_start REAL NOT NULL DEFAULT -9e999",
        "ALTER TABLE objects ADD COLUMN span_end REAL NOT NULL DEFAULT 9e999",
        "ALTER TABLE objects ADD COLUMN indexed_at REAL",
        "ALTER TABLE objects ADD COLUMN indexed_from REAL",
        "ALTER TABLE objects ADD COLUMN indexed_until REAL",
        "ALTER TABLE objects ADD COLUMN min_spacing REAL",
        "ALTER TABLE objects ADD COLUMN recurring INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE objects ADD COLUMN templates TEXT",
        "CREATE INDEX objects_by_span ON objects (span_start, span_end)",
        "CREATE TABLE instances (calendar TEXT NOT NULL COLLATE NOCASE, uid TEXT NOT NULL,"
        " seq INTEGER NOT NULL, low REAL NOT NULL, high REAL NOT NULL, long INTEGER NOT NULL,"
        " start TEXT NOT NULL, finish TEXT NOT NULL, original TEXT, template INTEGER NOT NULL)",
        "CREATE INDEX instances_of_object ON instances (calendar, uid)",
        "CREATE INDEX instances_by_start ON instances (low, high)",
        "CREATE INDEX instances_long ON instances (high) WHERE long",
    ),
}
QUEUE_COLUMNS = "id, op, calendar, uid, ics, expected_etag, state, error, created_at,"
QUEUE_COLUMNS += " result_etag"


class CacheDamaged(CalendarError):
    """The cache file could not be opened at all, not even after setting it aside."""


class CacheFile:
    """The SQLite file at `path`; one connection per thread, writes serialised."""

    def __init__(self, path: Path, *, now: float) -> None:
        self.path = path
        #: What befell a damaged file that was set aside on opening; None when it was sound.
        self.repaired: str | None = None
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        try:
            self._prepare()
        except sqlite3.DatabaseError as error:
            self._rebuild(f"it was damaged ({error})", now)

    def close(self) -> None:
        """Close every thread's connection (the last close folds the WAL into the file)."""
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; IMMEDIATE, so two writers queue instead of failing midway."""
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def read(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        """The rows a query returns, read on this thread's connection."""
        return list(self._connection().execute(sql, params))

    def _prepare(self) -> None:
        conn = self._connection()
        if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise sqlite3.DatabaseError("quick_check found damage")
        with self.writing() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                for statement in _FIRST_SCHEMA:
                    conn.execute(statement)
                version = 1
            if not 1 <= version <= SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"schema version {version}, not {SCHEMA_VERSION}")
            for step in range(version, SCHEMA_VERSION):
                for statement in _MIGRATIONS[step]:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _rebuild(self, why: str, now: float) -> None:
        """Set the file aside, start afresh and carry over the queue's open rows if readable."""
        self.close()
        kept = self.path.with_name(f"{self.path.name}.damaged-{int(now)}")
        for suffix in ("", "-wal", "-shm"):
            source = self.path.with_name(self.path.name + suffix)
            if source.exists():
                source.replace(kept.with_name(kept.name + suffix))
        rows, unreadable = _salvage_queue(kept)
        try:
            self._prepare()
        except sqlite3.DatabaseError as error:
            raise CacheDamaged(
                f"cannot make a new calendar cache at {self.path}: {error}"
            ) from None
        with self.writing() as conn:
            conn.executemany(
                f"INSERT INTO queue ({QUEUE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
            )
        if unreadable is None:
            fate = f"its {len(rows)} open queued change(s) were kept"
        else:
            fate = f"its queued changes could not be read ({unreadable}); any are still in {kept}"
        self.repaired = f"The calendar cache was set aside as {kept} because {why}; {fate}."
        log.warning("%s", self.repaired)

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            # Durable: the queue holds edits the user made offline, not yet on the server.
            conn = open_sqlite(self.path, durable=True)
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn


def _salvage_queue(kept: Path) -> tuple[list[tuple[object, ...]], str | None]:
    """The open queue rows of a set-aside cache file, or why they could not be read."""
    try:
        conn = open_sqlite(kept, durable=False)  # read once, to copy the queue out
    except sqlite3.Error as error:
        return [], str(error)
    try:
        rows = list(
            conn.execute(f"SELECT {QUEUE_COLUMNS} FROM queue WHERE state != 'done' ORDER BY id")
        )
        return rows, None
    except sqlite3.Error as error:
        return [], str(error)
    finally:
        conn.close()
