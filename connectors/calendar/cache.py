"""The calendar cache: what the sources last said, and the changes still waiting to reach them.

The calendars, objects and problems tables only mirror the sources and can be rebuilt by a
refresh; the queue cannot. The file itself, and setting it aside when it is damaged, is
`cache_file.CacheFile`'s part; what befell a damaged file is recorded here as a problem.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hearth.connectors.calendar import timeline
from hearth.connectors.calendar.cache_file import QUEUE_COLUMNS, CacheFile
from hearth.connectors.calendar.instances import ObjectIndex, index_object
from hearth.connectors.calendar.objects import CalendarRef, Problem, SourceKind, StoredObject

_CALENDAR_COLUMNS = "name, source, location, writable, color, sync_token, synced_at, online,"
_CALENDAR_COLUMNS += " last_error, sync_done, sync_total"


@dataclass(frozen=True)
class CachedCalendar:
    """A calendar as last seen, with how its last sync went."""

    ref: CalendarRef
    sync_token: str | None
    synced_at: float | None
    online: bool
    last_error: str | None
    progress: tuple[int, int] | None = None  # (objects read, of how many) while a sync runs


@dataclass(frozen=True)
class QueuedChange:
    """A change made while its source was unreachable, with the precondition it was made on.

    `expected_etag` None on a put means "create" (If-None-Match: *). An etag of the form
    `queued-<id>` names the version an earlier queued change will produce.
    """

    id: int
    op: str  # "put" | "delete"
    calendar: str
    uid: str
    ics: str | None
    expected_etag: str | None
    state: str  # "queued" | "conflict" | "done"
    error: str | None
    created_at: float
    result_etag: str | None = None  # the version a change that went through made


class CalendarCache(CacheFile):
    """The SQLite file behind `CalendarStore`; one connection per thread, writes serialised."""

    def __init__(self, path: Path, *, now: float, clock: Callable[[], float] = time.time) -> None:
        super().__init__(path, now=now)
        self.clock = clock
        if self.repaired is not None:
            self.add_problem(None, Problem(str(path), None, "calendar cache", self.repaired))

    # Calendars

    def calendars(self) -> list[CachedCalendar]:
        rows = self.read(f"SELECT {_CALENDAR_COLUMNS} FROM calendars ORDER BY name COLLATE NOCASE")
        return [_calendar(row) for row in rows]

    def save_calendar(self, conn: sqlite3.Connection, ref: CalendarRef) -> None:
        conn.execute(
            "INSERT INTO calendars (name, source, location, writable, color) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (name) DO UPDATE SET name = excluded.name, source = excluded.source,"
            " location = excluded.location, writable = excluded.writable, color = excluded.color",
            (ref.name, ref.source, ref.location, int(ref.writable), ref.color),
        )

    def mark(self, name: str, *, online: bool, error: str | None) -> None:
        with self.writing() as conn:
            conn.execute(
                "UPDATE calendars SET online = ?, last_error = ? WHERE name = ?",
                (int(online), error, name),
            )

    def forget_calendar(self, conn: sqlite3.Connection, name: str) -> None:
        """Drop a calendar its source no longer has; its queued changes stay in the queue."""
        timeline.forget(conn, name)
        for table, column in (("calendars", "name"), ("objects", "calendar")):
            conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (name,))
        conn.execute("DELETE FROM problems WHERE calendar = ?", (name,))

    # Objects, as the sources last had them

    def objects(self, calendar: str | None = None) -> list[StoredObject]:
        where, params = ("WHERE calendar = ?", (calendar,)) if calendar else ("", ())
        rows = self.read(
            f"SELECT calendar, uid, href, etag, ics FROM objects {where} ORDER BY calendar, uid",
            params,
        )
        return [StoredObject(*(str(value) for value in row)) for row in rows]

    def object(self, calendar: str, uid: str) -> StoredObject | None:
        rows = self.read(
            "SELECT calendar, uid, href, etag, ics FROM objects WHERE calendar = ? AND uid = ?",
            (calendar, uid),
        )
        return StoredObject(*(str(value) for value in rows[0])) if rows else None

    def known(self, calendar: str) -> dict[str, str]:
        """href -> etag of every cached object of the calendar, for a sync to compare against."""
        rows = self.read("SELECT href, etag FROM objects WHERE calendar = ?", (calendar,))
        return {str(href): str(etag) for href, etag in rows}

    def store_object(
        self, conn: sqlite3.Connection, obj: StoredObject, index: ObjectIndex | None = None
    ) -> None:
        """Store the object with its time-span index (worked out here unless given)."""
        now = self.clock()
        if index is None:
            index = index_object(obj.ics, now)
        conn.execute(
            "INSERT OR REPLACE INTO objects (calendar, uid, href, etag, ics)"
            " VALUES (?, ?, ?, ?, ?)",
            (obj.calendar, obj.uid, obj.href, obj.etag, obj.ics),
        )
        timeline.save(conn, obj.calendar, obj.uid, index, now)

    def retag(self, conn: sqlite3.Connection, obj: StoredObject) -> None:
        """Record a new href and etag for an object whose text is unchanged (its index stays)."""
        conn.execute(
            "UPDATE objects SET href = ?, etag = ? WHERE calendar = ? AND uid = ?",
            (obj.href, obj.etag, obj.calendar, obj.uid),
        )

    def drop_objects(
        self,
        conn: sqlite3.Connection,
        calendar: str,
        *,
        uid: str | None = None,
        href: str | None = None,
    ) -> None:
        """Drop the calendar's object with that UID or href; every one of them given neither."""
        timeline.forget(conn, calendar, uid=uid, href=href)
        if uid is None and href is None:
            conn.execute("DELETE FROM objects WHERE calendar = ?", (calendar,))
        elif uid is not None:
            conn.execute("DELETE FROM objects WHERE calendar = ? AND uid = ?", (calendar, uid))
        else:
            conn.execute("DELETE FROM objects WHERE calendar = ? AND href = ?", (calendar, href))

    def reindex(self, count: int) -> int:
        """Index up to `count` objects not indexed yet, or indexed up to a horizon drawing near;
        returns how many there were."""
        now = self.clock()
        stale = timeline.stale(self.read, now, count)
        indexes = [(calendar, uid, index_object(ics, now)) for calendar, uid, ics in stale]
        with self.writing() as conn:
            for calendar, uid, index in indexes:
                timeline.save(conn, calendar, uid, index, now)
        return len(indexes)

    def progress(self, conn: sqlite3.Connection, name: str, done: int, total: int) -> None:
        """Note how far a sync of the calendar has come; `synced` clears it."""
        conn.execute(
            "UPDATE calendars SET sync_done = ?, sync_total = ? WHERE name = ?",
            (done, total, name),
        )

    def synced(self, conn: sqlite3.Connection, name: str, token: str | None, at: float) -> None:
        conn.execute(
            "UPDATE calendars SET sync_token = ?, synced_at = ?, online = 1, last_error = NULL,"
            " sync_done = NULL, sync_total = NULL WHERE name = ?",
            (token, at, name),
        )

    # Problems

    def problems(self, calendar: str | None = None) -> list[Problem]:
        """What could not be read: of one calendar, or of all and the cache itself."""
        where, params = ("WHERE calendar = ?", (calendar,)) if calendar else ("", ())
        rows = self.read(
            f"SELECT location, line, component, message FROM problems {where} ORDER BY rowid",
            params,
        )
        return [
            Problem(str(w), None if n is None else int(str(n)), str(c), str(m))
            for w, n, c, m in rows
        ]

    def set_problems(self, conn: sqlite3.Connection, calendar: str, found: list[Problem]) -> None:
        conn.execute("DELETE FROM problems WHERE calendar = ?", (calendar,))
        for problem in found:
            self._insert_problem(conn, calendar, problem)

    def add_problem(self, calendar: str | None, problem: Problem) -> None:
        with self.writing() as conn:
            self._insert_problem(conn, calendar, problem)

    @staticmethod
    def _insert_problem(conn: sqlite3.Connection, calendar: str | None, problem: Problem) -> None:
        conn.execute(
            "INSERT INTO problems (calendar, location, line, component, message)"
            " VALUES (?, ?, ?, ?, ?)",
            (calendar, problem.where, problem.line, problem.component, problem.message),
        )

    # The queue

    def enqueue(
        self, op: str, calendar: str, uid: str, ics: str | None, expected: str | None, at: float
    ) -> int:
        with self.writing() as conn:
            cursor = conn.execute(
                "INSERT INTO queue (op, calendar, uid, ics, expected_etag, state, created_at)"
                " VALUES (?, ?, ?, ?, ?, 'queued', ?)",
                (op, calendar, uid, ics, expected, at),
            )
            return int(cursor.lastrowid or 0)

    def changes(self, *states: str, calendar: str | None = None) -> list[QueuedChange]:
        marks = ", ".join("?" for _ in states)
        sql = f"SELECT {QUEUE_COLUMNS} FROM queue WHERE state IN ({marks})"
        params: tuple[object, ...] = states
        if calendar is not None:
            sql, params = sql + " AND calendar = ?", (*states, calendar)
        return [_change(row) for row in self.read(sql + " ORDER BY id", params)]

    def change(self, change_id: int) -> QueuedChange | None:
        rows = self.read(f"SELECT {QUEUE_COLUMNS} FROM queue WHERE id = ?", (change_id,))
        return _change(rows[0]) if rows else None

    def settle(
        self,
        conn: sqlite3.Connection,
        change: QueuedChange,
        state: str,
        error: str | None,
        result_etag: str | None = None,
    ) -> None:
        """Record how a change ended; `result_etag` is the version a change that went made."""
        conn.execute(
            "UPDATE queue SET state = ?, error = ?, result_etag = ? WHERE id = ?",
            (state, error, result_etag, change.id),
        )

    def rebase(self, conn: sqlite3.Connection, change: QueuedChange, etag: str | None) -> None:
        """Later changes made on top of `change` now expect `etag` (its result, or its base)."""
        conn.execute(
            "UPDATE queue SET expected_etag = ? WHERE expected_etag = ? AND state != 'done'",
            (etag, f"queued-{change.id}"),
        )


def _calendar(row: tuple[object, ...]) -> CachedCalendar:
    name, source, location, writable, color, token, synced_at, online, error, done, total = row
    kind: SourceKind = "caldav" if source == "caldav" else "ics"
    ref = CalendarRef(str(name), kind, str(location), bool(writable), _text(color))
    at = None if synced_at is None else float(str(synced_at))
    progress = None if total is None else (int(str(done or 0)), int(str(total)))
    return CachedCalendar(ref, _text(token), at, bool(online), _text(error), progress)


def _change(row: tuple[object, ...]) -> QueuedChange:
    change_id, op, calendar, uid, ics, expected, state, error, created_at, result = row
    return QueuedChange(
        int(str(change_id)),
        str(op),
        str(calendar),
        str(uid),
        _text(ics),
        _text(expected),
        str(state),
        _text(error),
        float(str(created_at)),
        _text(result),
    )


def _text(value: object) -> str | None:
    return None if value is None else str(value)
