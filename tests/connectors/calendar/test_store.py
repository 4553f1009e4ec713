"""CalendarStore over real ICS files: reading from the cache, writing through, conflicts, damage."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from hearth.connectors.calendar.errors import CalendarNotFound, Conflict, EventNotFound
from hearth.connectors.calendar.local import IcsFileSource
from hearth.connectors.calendar.store import CalendarStore


def event(uid: str, summary: str, day: int = 5) -> str:
    """One standalone VCALENDAR holding one event."""
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth tests//EN\r\n"
        + _vevent(uid, summary, day)
        + "END:VCALENDAR\r\n"
    )


def _vevent(uid: str, summary: str, day: int) -> str:
    return (
        f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\n"
        f"DTSTART:202601{day:02d}T090000Z\r\nDTEND:202601{day:02d}T100000Z\r\n"
        f"SUMMARY:{summary}\r\nEND:VEVENT\r\n"
    )


def write_calendar(path: Path, name: str, events: dict[str, str]) -> None:
    body = "".join(_vevent(uid, summary, 5 + i) for i, (uid, summary) in enumerate(events.items()))
    path.write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Another app//EN\r\n"
        f"X-WR-CALNAME:{name}\r\n{body}END:VCALENDAR\r\n",
        newline="",
    )


@pytest.fixture
def home_file(tmp_path: Path) -> Path:
    path = tmp_path / "calendars" / "home.ics"
    path.parent.mkdir()
    write_calendar(path, "Home", {"dentist": "Dentist", "party": "Party"})
    return path


def open_store(tmp_path: Path, ics: Path) -> CalendarStore:
    source = IcsFileSource(lambda: [ics.parent])
    return CalendarStore(tmp_path / "cache" / "calendar.sqlite3", lambda: [source])


def summaries(store: CalendarStore, calendar: str | None = None) -> dict[str, str]:
    found = {}
    for obj in store.objects(calendar):
        line = next(line for line in obj.ics.splitlines() if line.startswith("SUMMARY:"))
        found[obj.uid] = line.removeprefix("SUMMARY:")
    return found


def test_calendars_and_events_are_read_from_the_cache(tmp_path: Path, home_file: Path) -> None:
    store = open_store(tmp_path, home_file)
    [state] = store.refresh()
    assert (state.calendar, state.kind, state.online, state.pending) == ("Home", "ics", True, 0)
    assert [ref.name for ref in store.calendars()] == ["Home"]
    assert store.calendar("hOME").location == str(home_file)
    assert summaries(store, "home") == {"dentist": "Dentist", "party": "Party"}
    assert store.find("party").calendar == "Home"
    with pytest.raises(CalendarNotFound, match="'Home'"):
        store.calendar("Work")
    with pytest.raises(EventNotFound, match="gym"):
        store.find("gym")
    store.close()

    home_file.unlink()  # the source is gone, yet a new store over the cache still reads it
    reopened = open_store(tmp_path, home_file)
    assert summaries(reopened) == {"dentist": "Dentist", "party": "Party"}


def test_writes_go_through_to_the_file_and_every_etag_follows(
    tmp_path: Path, home_file: Path
) -> None:
    store = open_store(tmp_path, home_file)
    store.refresh()
    dentist, party = store.find("dentist"), store.find("party")
    saved = store.put(
        "home", "dentist", event("dentist", "Dentist at 9"), expected_etag=dentist.etag
    )
    assert not saved.queued
    assert "SUMMARY:Dentist at 9" in home_file.read_text()
    # The file's hash is every event's etag; the cache must know the new one for "party" too.
    store.delete(store.find("party"))
    assert party.etag != store.find("dentist").etag
    assert summaries(store) == {"dentist": "Dentist at 9"}
    created = store.put("Home", "gym", event("gym", "Gym"), expected_etag=None)
    assert created.object.etag == store.find("gym").etag
    assert "UID:gym" in home_file.read_text()
    assert store.pending() == []


def test_a_file_changed_elsewhere_is_a_conflict_and_its_version_is_read(
    tmp_path: Path, home_file: Path
) -> None:
    store = open_store(tmp_path, home_file)
    store.refresh()
    stale = store.find("dentist")
    write_calendar(home_file, "Home", {"dentist": "Dentist moved", "party": "Party"})
    with pytest.raises(Conflict):
        store.put("Home", "dentist", event("dentist", "Mine"), expected_etag=stale.etag)
    assert "SUMMARY:Dentist moved" in home_file.read_text()
    assert "Mine" not in home_file.read_text()
    assert summaries(store)["dentist"] == "Dentist moved"  # fetched without another refresh
    with pytest.raises(Conflict):
        store.delete(stale)
    assert set(summaries(store)) == {"dentist", "party"}


def test_an_unchanged_file_is_not_stored_again(tmp_path: Path, home_file: Path) -> None:
    store = open_store(tmp_path, home_file)
    store.refresh()
    # Mark the cached copy: a refresh that stores the file again would overwrite the mark.
    with sqlite3.connect(tmp_path / "cache" / "calendar.sqlite3") as cache:
        cache.execute("UPDATE objects SET ics = replace(ics, 'Party', 'Marked')")
    cache.close()
    store.refresh()
    assert summaries(store)["party"] == "Marked"
    write_calendar(home_file, "Home", {"dentist": "Dentist", "party": "Party at 8"})
    store.refresh()
    assert summaries(store)["party"] == "Party at 8"


def test_a_file_no_longer_granted_leaves_the_cache(tmp_path: Path, home_file: Path) -> None:
    store = open_store(tmp_path, home_file)
    store.refresh()
    home_file.rename(home_file.with_suffix(".txt"))
    assert store.refresh() == []
    assert store.calendars() == []
    assert store.objects() == []


def test_a_corrupted_cache_is_set_aside_and_rebuilt(tmp_path: Path, home_file: Path) -> None:
    store = open_store(tmp_path, home_file)
    store.refresh()
    store.close()
    cache_file = tmp_path / "cache" / "calendar.sqlite3"
    with cache_file.open("r+b") as file:
        file.write(b"this is not a database any more" * 4)

    rebuilt = open_store(tmp_path, home_file)
    [problem] = rebuilt.problems()
    assert "set aside" in problem.message
    assert "queued changes could not be read" in problem.message  # never lost silently
    kept = list(cache_file.parent.glob("calendar.sqlite3.damaged-*"))
    assert len(kept) == 1
    assert str(kept[0]) in problem.message
    assert rebuilt.objects() == []
    rebuilt.refresh()
    assert summaries(rebuilt) == {"dentist": "Dentist", "party": "Party"}


def test_a_cache_from_another_schema_version_is_set_aside(tmp_path: Path, home_file: Path) -> None:
    store = open_store(tmp_path, home_file)
    store.refresh()
    store.close()
    cache_file = tmp_path / "cache" / "calendar.sqlite3"
    with sqlite3.connect(cache_file) as conn:
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    reopened = open_store(tmp_path, home_file)
    [problem] = reopened.problems()
    assert "schema version 99" in problem.message
    assert "0 open queued change(s) were kept" in problem.message


def test_threads_read_and_write_at_once(tmp_path: Path, home_file: Path) -> None:
    store = open_store(tmp_path, home_file)
    store.refresh()
    failures: list[BaseException] = []

    def create(number: int) -> None:
        try:
            for attempt in range(20):
                try:
                    store.put("Home", f"t{number}", event(f"t{number}", "T"), expected_etag=None)
                    return
                except Conflict:  # another thread wrote the file between read and write
                    assert attempt < 19
        except BaseException as error:
            failures.append(error)

    def read() -> None:
        try:
            for _ in range(30):
                assert {"dentist", "party"} <= set(summaries(store))
                store.status()
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=create, args=(n,)) for n in range(4)]
    threads += [threading.Thread(target=read) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert set(summaries(store)) == {"dentist", "party", "t0", "t1", "t2", "t3"}
    store.refresh()
    assert set(summaries(store)) == {"dentist", "party", "t0", "t1", "t2", "t3"}
