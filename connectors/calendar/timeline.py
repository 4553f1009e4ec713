"""The cache's time-span index: each object's span and stored occurrences, and reading them back.

Beside every cached object the `objects` table keeps its span (`span_start`, `span_end`,
seconds since the epoch; see `span`) and, where they could be worked out ahead, the window its
occurrences are stored for; the occurrences themselves are rows of `instances`. An object not
indexed yet (just migrated) spans all time and is expanded at query time until a sync indexes it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hearth.connectors.calendar.expand import EventFields
from hearth.connectors.calendar.instances import AHEAD, LONG, ObjectIndex
from hearth.connectors.calendar.span import DAY

Read = Callable[[str, tuple[object, ...]], list[tuple[object, ...]]]
Key = tuple[str, str]  # (calendar, uid) as stored
# calendar, uid, seq, low, high, start, end, original, template
StoredRow = tuple[str, str, int, float, float, str, str, str | None, int]

_INSTANCE_COLUMNS = "calendar, uid, seq, low, high, long, start, finish, original, template"
_CANDIDATE_COLUMNS = "calendar, uid, indexed_from, indexed_until, min_spacing, recurring, templates"


@dataclass(frozen=True)
class Candidate:
    """An object whose span overlaps a range, and what is stored of its occurrences."""

    calendar: str
    uid: str
    window: tuple[float, float] | None
    min_spacing: float | None
    recurring: bool
    templates: str | None

    def covers(self, start: float, end: float, limit: int) -> bool:
        """Whether the stored occurrences stand in for expanding [start, end) with `limit`."""
        if self.window is None:
            return False
        low, high = self.window
        dense = self.min_spacing is not None and self.min_spacing * limit < end - start
        return low + DAY <= start and end <= high - DAY and not dense

    def fields(self) -> list[EventFields]:
        """The components' fields the stored occurrences point to."""
        return [
            EventFields(u, t, loc, d, tuple(a), o, bool(b), tuple(c))
            for u, t, loc, d, a, o, b, c in json.loads(self.templates or "[]")
        ]


def save(conn: sqlite3.Connection, calendar: str, uid: str, index: ObjectIndex, now: float) -> None:
    """Store the object's span and occurrences (the object's row must exist)."""
    window = index.window
    templates = json.dumps(
        [
            [f.uid, f.title, f.location, f.description, f.attendees, f.organizer, f.busy,
             f.categories]
            for f in index.templates
        ]
    )  # fmt: skip
    conn.execute(
        "UPDATE objects SET span_start = ?, span_end = ?, indexed_at = ?, indexed_from = ?,"
        " indexed_until = ?, min_spacing = ?, recurring = ?, templates = ?"
        " WHERE calendar = ? AND uid = ?",
        (
            *index.span,
            now,
            None if window is None else window[0],
            None if window is None else window[1],
            index.min_spacing,
            int(index.recurring),
            templates,
            calendar,
            uid,
        ),
    )
    conn.execute("DELETE FROM instances WHERE calendar = ? AND uid = ?", (calendar, uid))
    conn.executemany(
        f"INSERT INTO instances ({_INSTANCE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ((calendar, uid, *row) for row in index.rows),
    )


def forget(
    conn: sqlite3.Connection, calendar: str, *, uid: str | None = None, href: str | None = None
) -> None:
    """Drop the stored occurrences of the objects `drop_objects` is about to drop."""
    if uid is not None:
        conn.execute("DELETE FROM instances WHERE calendar = ? AND uid = ?", (calendar, uid))
    elif href is not None:
        conn.execute(
            "DELETE FROM instances WHERE calendar = ? AND uid IN"
            " (SELECT uid FROM objects WHERE calendar = ? AND href = ?)",
            (calendar, calendar, href),
        )
    else:
        conn.execute("DELETE FROM instances WHERE calendar = ?", (calendar,))


def stale(read: Read, now: float, count: int) -> list[tuple[str, str, str]]:
    """Up to `count` objects (calendar, uid, text) to index: never indexed, or stored only up
    to a horizon now less than half of AHEAD away (looked at again once a day at most)."""
    rows = read(
        "SELECT calendar, uid, ics FROM objects WHERE indexed_at IS NULL"
        " OR (indexed_until < span_end AND indexed_until < ? AND indexed_at < ?) LIMIT ?",
        (now + AHEAD / 2, now - DAY, count),
    )
    return [(str(c), str(u), str(t)) for c, u, t in rows]


def candidates(read: Read, start: float, end: float, calendar: str | None) -> list[Candidate]:
    """The objects whose span overlaps [start, end) (of one calendar, if named)."""
    where, params = _span_filter(start, end, calendar)
    rows = read(f"SELECT {_CANDIDATE_COLUMNS} FROM objects WHERE {where}", params)
    return [
        Candidate(
            str(cal),
            str(uid),
            None if low is None else (_real(low), _real(high)),
            None if spacing is None else _real(spacing),
            bool(recurring),
            None if templates is None else str(templates),
        )
        for cal, uid, low, high, spacing, recurring, templates in rows
    ]


def texts(read: Read, keys: Iterable[Key]) -> dict[Key, str]:
    """The stored text of each object named."""
    found: dict[Key, str] = {}
    for calendar, uid in keys:
        rows = read("SELECT ics FROM objects WHERE calendar = ? AND uid = ?", (calendar, uid))
        if rows:
            found[(calendar, uid)] = str(rows[0][0])
    return found


def instances(read: Read, start: float, end: float, calendar: str | None) -> list[StoredRow]:
    """Stored occurrences that may overlap [start, end), with a day to spare each side (for
    dates and floating times, stored as if in UTC)."""
    low, high = start - DAY, end + DAY
    mine, params = ("AND calendar = ?", (calendar,)) if calendar is not None else ("", ())
    columns = "calendar, uid, seq, low, high, start, finish, original, template"
    rows: list[StoredRow] = read(  # type: ignore[assignment]
        f"SELECT {columns} FROM instances WHERE low >= ? AND low < ? AND high > ? {mine}"
        f" UNION ALL SELECT {columns} FROM instances WHERE long AND high > ? AND low < ? {mine}",
        (low - LONG, high, low, *params, low, low - LONG, *params),
    )
    return rows


def _span_filter(start: float, end: float, calendar: str | None) -> tuple[str, tuple[object, ...]]:
    where = "span_start < ? AND span_end > ?"
    if calendar is None:
        return where, (end, start)
    return where + " AND calendar = ?", (end, start, calendar)


def _real(value: object) -> float:
    return float(str(value))  # REAL, infinities included
