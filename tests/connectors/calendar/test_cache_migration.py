"""A calendar cache written before the time-span index is brought up to date in place.

The file is made here with the first schema exactly as Hearth wrote it (version 1), holding an
event series, a one-off event, a change queued offline and a problem. Opening it must keep all
of them, list exactly what the full parse lists before anything is indexed, and index it all at
the next sync, listing the same; the migrated file must have the schema of a new one.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from hearth.connectors.calendar import timeline
from hearth.connectors.calendar.expand import occurrences
from hearth.connectors.calendar.store import CalendarStore

BERLIN = ZoneInfo("Europe/Berlin")
VERSION_1 = (
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
SERIES = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Other//EN\r\nBEGIN:VEVENT\r\nUID:standup\r\n"
    "DTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Berlin:20261102T090000\r\n"
    "DTEND;TZID=Europe/Berlin:20261102T091500\r\nRRULE:FREQ=DAILY\r\n"
    "EXDATE;TZID=Europe/Berlin:20261203T090000\r\nSUMMARY:Standup\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:standup\r\nDTSTAMP:20260101T000000Z\r\n"
    "RECURRENCE-ID;TZID=Europe/Berlin:20261204T090000\r\n"
    "DTSTART;TZID=Europe/Berlin:20270115T160000\r\nDTEND;TZID=Europe/Berlin:20270115T161500\r\n"
    "SUMMARY:Standup (moved)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)
DENTIST = SERIES.split("BEGIN:VEVENT")[0] + (
    "BEGIN:VEVENT\r\nUID:dentist\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261207T140000Z\r\n"
    "DTEND:20261207T150000Z\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


def version_1_cache(path: Path) -> None:
    """A cache as Hearth wrote it before the index: a calendar, two events, a queued change."""
    with sqlite3.connect(path) as conn:
        for statement in VERSION_1:
            conn.execute(statement)
        conn.execute(
            "INSERT INTO calendars VALUES ('Work', 'caldav', 'https://example.org/work/', 1,"
            " NULL, 'token-1', 1764000000.0, 1, NULL)"
        )
        for uid, ics in (("standup", SERIES), ("dentist", DENTIST)):
            conn.execute(
                "INSERT INTO objects VALUES ('Work', ?, ?, '\"1\"', ?)",
                (uid, f"https://example.org/work/{uid}.ics", ics),
            )
        conn.execute(
            "INSERT INTO queue (op, calendar, uid, ics, expected_etag, state, created_at)"
            " VALUES ('put', 'Work', 'dentist', ?, '\"1\"', 'queued', 1764000100.0)",
            (DENTIST.replace("Dentist", "Dentist (moved)").replace("T14", "T16"),),
        )
        conn.execute(
            "INSERT INTO problems VALUES ('Work', 'https://example.org/work/x.ics', NULL,"
            " 'VCALENDAR', 'not readable')"
        )
        conn.execute("PRAGMA user_version = 1")
    conn.close()


def listings_agree(store: CalendarStore) -> int:
    """Whether the store lists what the full parse lists, over a few ranges; how many it did."""
    listed = 0
    objects = [(obj.calendar, obj.ics) for obj in store.objects()]
    for start, days in ((datetime(2026, 12, 1), 1), (datetime(2026, 11, 30), 7), (None, 60)):
        begin = (start or datetime(2026, 12, 1)).replace(tzinfo=BERLIN)
        end = begin + timedelta(days=days)
        found = store.occurrences(begin, end, BERLIN)
        assert found == occurrences(objects, begin, end, BERLIN)
        listed += len(found[0])
    return listed


def schema(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
    conn.close()
    return rows


def test_a_version_1_cache_is_migrated_keeping_everything(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    version_1_cache(path)
    now = datetime(2026, 12, 1, tzinfo=BERLIN).timestamp()

    store = CalendarStore(path, list, clock=lambda: now)

    assert store.problems("Work")[0].message == "not readable"  # nothing set aside
    assert not list(tmp_path.glob("*.damaged-*"))
    assert [(c.uid, c.state) for c in store.pending()] == [("dentist", "queued")]
    assert {obj.uid for obj in store.objects()} == {"standup", "dentist"}
    assert "Dentist (moved)" in store.find("dentist").ics  # the queued version, as before
    [state] = store.status()
    assert (state.calendar, state.progress, state.pending) == ("Work", None, 1)
    # Not indexed yet: every object is a candidate, expanded at query time, exactly as before.
    start = datetime(2026, 12, 1, tzinfo=BERLIN).timestamp()
    assert {c.window for c in timeline.candidates(store._cache.read, start, start, None)} == {None}
    before = listings_agree(store)

    store.index()  # what the next sync does first

    windows = {c.uid: c.window for c in timeline.candidates(store._cache.read, start, start, None)}
    assert all(window is not None for window in windows.values())
    assert listings_agree(store) == before > 60
    store.close()
    fresh = tmp_path / "fresh.sqlite3"
    CalendarStore(fresh, list).close()
    assert schema(path) == schema(fresh)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    conn.close()
