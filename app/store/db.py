"""One SQLite file for Hearth's durable state, opened by `open_sqlite`, with versioned schemas.

Each thread gets its own connection, because sqlite3 connections must not be shared while
in use. Writes go through `Database.transaction()`, which takes the write lock up front
(`BEGIN IMMEDIATE`) so two threads never deadlock upgrading a read to a write. A handle that
records calls claims an owner (`claim_owner()`, see `hearth.store.owners`), so startup recovery
in another process can tell its open calls from those of a process that died.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hearth import paths
from hearth.errors import HearthError
from hearth.sqlite import open_sqlite
from hearth.store.owners import Owner, lock_folder

DATABASE_NAME = "hearth.db"

# One migration step is a list of single SQL statements: executescript() would commit
# behind our back, so steps are run statement by statement inside one transaction.
Migration = Sequence[str]

_CORRUPT_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_ENVIRONMENT_CODES = {
    sqlite3.SQLITE_BUSY: "another program holds it locked; close other Hearth windows",
    sqlite3.SQLITE_LOCKED: "it is locked; close other Hearth windows",
    sqlite3.SQLITE_FULL: "the disk is full; free some space",
    sqlite3.SQLITE_IOERR: "the disk reported an I/O error; check the drive",
    sqlite3.SQLITE_CANTOPEN: "it cannot be opened; check the folder exists and is writable",
    sqlite3.SQLITE_READONLY: "it is read-only; check the file's permissions",
    sqlite3.SQLITE_PERM: "permission was denied; check the file's permissions",
}


class StoreError(HearthError):
    """Hearth's database could not be read or written."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = Path(path)
        self.reason = reason


class DatabaseCorrupt(StoreError):
    """The database file is not a SQLite database or is damaged; it is left untouched."""

    def __init__(self, path: Path | str, detail: str) -> None:
        super().__init__(
            path,
            f"the database is damaged ({detail}). Hearth has not changed it. Quit Hearth, then "
            "restore the file from a backup, or move it and its -wal and -shm files elsewhere "
            "to start with an empty history.",
        )


class NotFound(StoreError):
    """A conversation, intent or other row the caller named does not exist."""


def utc_now() -> str:
    """The current time as stored: fixed-width ISO 8601 UTC, so text order is time order."""
    return to_stored_time(datetime.now(UTC))


def to_stored_time(moment: datetime) -> str:
    # Naive datetimes are taken as local time, as datetime.astimezone() does.
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def from_stored_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


class Database:
    """A SQLite database file shared by the stores, safe to use from several threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[tuple[threading.Thread, sqlite3.Connection]] = []
        self._closed = False
        self._owner: Owner | None = None

    def connection(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use."""
        if self._closed:
            raise StoreError(self.path, "the database has been closed")
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
        return conn

    def _connect(self) -> sqlite3.Connection:
        with self._lock:
            if self._closed:
                raise StoreError(self.path, "the database has been closed")
            with self.translate_errors():
                # Durable: conversations, the audit log and consent rules exist nowhere else.
                conn = open_sqlite(self.path, durable=True)
                try:
                    _configure(conn, self.path)
                except BaseException:
                    conn.close()
                    raise
            self._close_orphans()
            self._connections.append((threading.current_thread(), conn))
            return conn

    @property
    def owner(self) -> str | None:
        """The owner id that calls recorded through this handle carry; None until claimed."""
        owner = self._owner
        return owner.id if owner is not None else None

    def claim_owner(self) -> str:
        """Hold an owner lock for as long as this handle is open (once); the owner's id.

        Calls recorded from then on name it, and recovery leaves them alone while it is held.
        """
        with self._lock:
            if self._closed:
                raise StoreError(self.path, "the database has been closed")
            if self._owner is None:
                try:
                    self._owner = Owner.claim(lock_folder(self.path))
                except OSError as error:
                    raise StoreError(
                        self.path, f"Hearth could not hold its lock file: {error}"
                    ) from error
            return self._owner.id

    def _close_orphans(self) -> None:
        # Threads that ended cannot use their connection again; closing them stops a
        # thread-per-task caller from leaking one file handle per task.
        alive = [(thread, conn) for thread, conn in self._connections if thread.is_alive()]
        for thread, conn in self._connections:
            if not thread.is_alive():
                conn.close()
        self._connections = alive

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run the block as one write transaction, committed (durably) before this returns."""
        conn = self.connection()
        if conn.in_transaction:  # nested use joins the outer transaction
            yield conn
            return
        with self.translate_errors():
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                # SQLite may already have rolled back (disk full, I/O error).
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Rows of one read-only statement, from a consistent snapshot."""
        with self.translate_errors():
            return self.connection().execute(sql, params).fetchall()

    def migrate(self, component: str, steps: Sequence[Migration]) -> int:
        """Bring `component`'s tables up to `len(steps)`, applying each missing step once."""
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT version FROM schema_version WHERE component = ?", (component,)
            ).fetchone()
            current = int(row[0]) if row else 0
            if current > len(steps):
                raise StoreError(
                    self.path,
                    f"it was written by a newer Hearth ({component} schema {current}, this "
                    f"version knows {len(steps)}). Update Hearth to open it.",
                )
            for step in steps[current:]:
                for statement in step:
                    conn.execute(statement)
            if current < len(steps):
                conn.execute(
                    "INSERT INTO schema_version (component, version, migrated_at) VALUES (?, ?, ?)"
                    " ON CONFLICT (component) DO UPDATE SET version = excluded.version,"
                    " migrated_at = excluded.migrated_at",
                    (component, len(steps), utc_now()),
                )
        return len(steps)

    def schema_version(self, component: str) -> int:
        """The schema version `component`'s tables are at; 0 when it has none yet."""
        rows = self.query("SELECT version FROM schema_version WHERE component = ?", (component,))
        return int(rows[0][0]) if rows else 0

    def integrity_check(self) -> list[str]:
        """SQLite's full integrity check: `["ok"]` for a healthy file, else the problems."""
        return [str(row[0]) for row in self.query("PRAGMA integrity_check")]

    def close(self) -> None:
        """Close every thread's connection and release the owner; later use raises StoreError."""
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
            owner, self._owner = self._owner, None
        for _, conn in connections:
            conn.close()
        if owner is not None:
            owner.release()  # after the connections: every write it made is on disk

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def translate_errors(self) -> Iterator[None]:
        """Turn SQLite errors the user can act on into StoreError; our own bugs stay as they are."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise _translated(self.path, exc) from exc

    def __repr__(self) -> str:
        return f"Database({str(self.path)!r})"


def _translated(path: Path, exc: sqlite3.DatabaseError) -> Exception:
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # the primary code of an extended one
    if code in _CORRUPT_CODES:
        return DatabaseCorrupt(path, str(exc))
    if code in _ENVIRONMENT_CODES:
        return StoreError(path, f"{exc}: {_ENVIRONMENT_CODES[code]}")
    return exc


def _configure(conn: sqlite3.Connection, path: Path) -> None:
    conn.row_factory = sqlite3.Row
    # open_sqlite asks for WAL; this file is shared between processes, so it must have it.
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if str(mode).lower() != "wal":
        raise StoreError(path, f"the file system does not support WAL (journal mode is {mode})")


def open_database(path: Path | None = None) -> Database:
    """Open (creating if absent) Hearth's database; a damaged file raises DatabaseCorrupt."""
    path = path if path is not None else paths.data_dir() / DATABASE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    db = Database(path)
    try:
        with db.transaction() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version ("
                " component TEXT PRIMARY KEY, version INTEGER NOT NULL, migrated_at TEXT NOT NULL)"
            )
            # Reading every table's definition catches a damaged schema page at open time.
            conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    except BaseException:
        db.close()
        raise
    return db
