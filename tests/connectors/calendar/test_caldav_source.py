"""CalDavSource against a real Radicale: discovery, CRUD, preconditions on the wire, sync."""

from __future__ import annotations

from collections.abc import Iterator

import caldav
import icalendar
import pytest
from caldav.elements import ical

from hearth.connectors.calendar.caldav_source import CalDavSource, Changes, read_object
from hearth.connectors.calendar.errors import Conflict, Offline, ReadOnlyCalendar
from hearth.connectors.calendar.objects import CalendarRef, Problem, StoredObject
from hearth.connectors.calendar.webdav import LoginFailed
from hearth.connectors.evaluation.servers.radicale import PASSWORD, USER, RadicaleServer
from tests.connectors.calendar.recording_proxy import RecordingProxy


def event(uid: str, summary: str) -> str:
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth tests//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:{uid}\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240301T100000Z\r\n"
        f"DTEND:20240301T110000Z\r\nSUMMARY:{summary}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def summary(ics: str) -> str:
    return str(icalendar.Calendar.from_ical(ics).walk("VEVENT")[0]["SUMMARY"])


@pytest.fixture
def other(radicale: RadicaleServer) -> caldav.DAVClient:
    """A second, ordinary CalDAV client logged in as the same user (another app or device)."""
    return caldav.DAVClient(url=radicale.url, username=USER, password=PASSWORD)


@pytest.fixture
def work(other: caldav.DAVClient) -> caldav.Calendar:
    return other.principal().make_calendar(name="Work")


@pytest.fixture
def proxy(radicale: RadicaleServer, work: caldav.Calendar) -> Iterator[RecordingProxy]:
    with RecordingProxy(radicale.port) as recording:
        yield recording


def calendar_named(source: CalDavSource, name: str) -> CalendarRef:
    return next(calendar for calendar in source.calendars() if calendar.name == name)


def test_discovers_calendars_from_the_bare_server_url(
    radicale: RadicaleServer, other: caldav.DAVClient, work: caldav.Calendar
) -> None:
    tasks = other.principal().make_calendar(
        name="Tasks", supported_calendar_component_set=["VTODO"]
    )
    work.set_properties([ical.CalendarColor("#3366CCFF")])

    calendars = {ref.name: ref for ref in CalDavSource(radicale.url, USER, PASSWORD).calendars()}

    assert set(calendars) == {"Work", "Tasks"}
    assert calendars["Work"].location == str(work.url)
    assert calendars["Work"].writable and calendars["Work"].color == "#3366CCFF"
    assert calendars["Work"].source == "caldav"
    assert not calendars["Tasks"].writable  # takes no events
    assert calendars["Tasks"].location == str(tasks.url)


def test_create_read_update_delete_round_trip(
    radicale: RadicaleServer, work: caldav.Calendar
) -> None:
    source = CalDavSource(radicale.url, USER, PASSWORD)
    calendar = calendar_named(source, "Work")

    created = source.put(calendar, "standup-1", event("standup-1", "Standup"), expected_etag=None)
    assert created.href == calendar.location + "standup-1.ics"
    [listed], problems = source.objects(calendar)
    assert problems == [] and listed.uid == "standup-1" and listed.etag == created.etag

    updated = source.put(
        calendar, "standup-1", event("standup-1", "Standup moved"), expected_etag=listed.etag
    )
    assert updated.etag != created.etag and updated.href == created.href
    [reread], _ = source.objects(calendar)
    assert summary(reread.ics) == "Standup moved" and reread.etag == updated.etag

    source.delete(calendar, reread)
    assert source.objects(calendar) == ([], [])


def test_every_write_names_the_version_it_expects(proxy: RecordingProxy) -> None:
    source = CalDavSource(proxy.url, USER, PASSWORD)
    calendar = calendar_named(source, "Work")

    created = source.put(calendar, "lunch", event("lunch", "Lunch"), expected_etag=None)
    updated = source.put(
        calendar, "lunch", event("lunch", "Long lunch"), expected_etag=created.etag
    )
    source.delete(calendar, updated)

    create, update = proxy.sent("PUT")
    assert create.header("If-None-Match") == "*" and create.header("If-Match") is None
    assert update.header("If-Match") == created.etag and update.header("If-None-Match") is None
    [delete] = proxy.sent("DELETE")
    assert delete.header("If-Match") == updated.etag


def test_a_concurrent_edit_is_a_conflict_and_nothing_is_lost(
    radicale: RadicaleServer, work: caldav.Calendar
) -> None:
    source = CalDavSource(radicale.url, USER, PASSWORD)
    calendar = calendar_named(source, "Work")
    read = source.put(calendar, "review", event("review", "Review"), expected_etag=None)

    theirs = work.get_event_by_uid("review")
    theirs.icalendar_component["SUMMARY"] = "Review (moved by phone)"
    theirs.save()

    with pytest.raises(Conflict, match="changed on the server since Hearth read it"):
        source.put(calendar, "review", event("review", "Review (Hearth)"), expected_etag=read.etag)
    with pytest.raises(Conflict, match="nothing was deleted"):
        source.delete(calendar, read)
    kept = work.get_event_by_uid("review")
    assert str(kept.icalendar_component["SUMMARY"]) == "Review (moved by phone)"


def test_creating_an_existing_uid_is_a_conflict_and_keeps_the_original(
    radicale: RadicaleServer, work: caldav.Calendar
) -> None:
    source = CalDavSource(radicale.url, USER, PASSWORD)
    calendar = calendar_named(source, "Work")
    source.put(calendar, "dentist", event("dentist", "Dentist"), expected_etag=None)

    with pytest.raises(Conflict, match="already exists"):
        source.put(calendar, "dentist", event("dentist", "Someone else"), expected_etag=None)
    [kept], _ = source.objects(calendar)
    assert summary(kept.ics) == "Dentist"


def test_updates_an_event_another_client_named_after_a_restart(
    radicale: RadicaleServer, other: caldav.DAVClient, work: caldav.Calendar
) -> None:
    their_href = f"{work.url}made-on-the-phone-7f3a.ics"
    other.put(their_href, event("phone-made", "From the phone"), {"Content-Type": "text/calendar"})
    [read], _ = CalDavSource(radicale.url, USER, PASSWORD).objects(
        calendar_named(CalDavSource(radicale.url, USER, PASSWORD), "Work")
    )
    fresh = CalDavSource(radicale.url, USER, PASSWORD)  # a restart: it has listed nothing

    saved = fresh.put(
        calendar_named(fresh, "Work"),
        "phone-made",
        event("phone-made", "Edited"),
        expected_etag=read.etag,
    )

    assert saved.href == their_href == read.href
    assert summary(work.get_event_by_uid("phone-made").data) == "Edited"


def test_resources_without_events_are_skipped(
    radicale: RadicaleServer, work: caldav.Calendar
) -> None:
    work.save_todo(summary="Buy milk", uid="todo-1")
    work.save_event(event("party", "Party"))
    source = CalDavSource(radicale.url, USER, PASSWORD)
    calendar = calendar_named(source, "Work")

    objects, problems = source.objects(calendar)
    assert [obj.uid for obj in objects] == ["party"] and problems == []
    everything = source.changes(calendar, None)
    assert [obj.uid for obj in everything.changed] == ["party"]


def test_unreadable_resources_are_problems_not_crashes() -> None:
    where = "https://example.org/cal/broken.ics"
    not_ics = read_object("Work", where, '"1"', "this is not a calendar")
    second = event("b", "B").split("BEGIN:VEVENT")[1].split("END:VCALENDAR")[0]
    two_uids = read_object(
        "Work",
        where,
        '"1"',
        event("a", "A").replace("END:VCALENDAR", "BEGIN:VEVENT" + second + "END:VCALENDAR"),
    )
    todo_only = read_object("Work", where, '"1"', event("t", "T").replace("VEVENT", "VTODO"))
    bare = read_object("Work", where, '"1"', "BEGIN:VEVENT\r\nUID:x\r\nEND:VEVENT\r\n")
    good = read_object("Work", where, '"1"', event("fine", "Fine"))

    for found in (not_ics, bare, two_uids):
        assert isinstance(found, Problem) and found.where == where
    assert todo_only is None
    assert isinstance(good, StoredObject) and good.uid == "fine"


def test_a_broken_file_in_the_server_storage_does_not_stop_the_rest(
    radicale: RadicaleServer, work: caldav.Calendar
) -> None:
    work.save_event(event("ok", "Still here"))
    folder = next((radicale.folder / "collections").rglob("ok.ics")).parent
    (folder / "broken.ics").write_text("BEGIN:VCALENDAR\r\nthis is not a calendar\r\n")
    source = CalDavSource(radicale.url, USER, PASSWORD)

    objects, _ = source.objects(calendar_named(source, "Work"))

    assert [obj.uid for obj in objects] == ["ok"]


def test_sync_token_reports_what_another_client_changed(
    radicale: RadicaleServer, work: caldav.Calendar
) -> None:
    keep = work.save_event(event("keep", "Keep"))
    edit = work.save_event(event("edit", "Edit me"))
    gone = work.save_event(event("gone", "Delete me"))
    source = CalDavSource(radicale.url, USER, PASSWORD)
    calendar = calendar_named(source, "Work")
    first = source.changes(calendar, None)
    assert first.full and {obj.uid for obj in first.changed} == {"keep", "edit", "gone"}

    work.save_event(event("added", "Added"))
    edit.icalendar_component["SUMMARY"] = "Edited elsewhere"
    edit.save()
    gone.delete()
    later = source.changes(calendar, first.token)

    assert not later.full and later.token not in (None, first.token)
    assert {obj.uid: summary(obj.ics) for obj in later.changed} == {
        "added": "Added",
        "edit": "Edited elsewhere",
    }
    assert later.deleted == [str(gone.url)]
    assert str(keep.url) not in later.deleted
    assert source.changes(calendar, later.token) == Changes([], [], later.token, False)


def test_an_unknown_sync_token_gives_a_full_listing(
    radicale: RadicaleServer, work: caldav.Calendar
) -> None:
    work.save_event(event("one", "One"))
    source = CalDavSource(radicale.url, USER, PASSWORD)
    calendar = calendar_named(source, "Work")
    known = {calendar.location + "vanished.ics": '"old"'}

    listing = source.changes(calendar, "http://radicale.org/ns/sync/forgotten", known)

    assert listing.full and [obj.uid for obj in listing.changed] == ["one"]
    assert listing.deleted == [calendar.location + "vanished.ics"]
    assert listing.token is not None


def test_without_sync_support_only_changed_etags_are_fetched(
    radicale: RadicaleServer, work: caldav.Calendar
) -> None:
    work.save_event(event("same", "Same"))
    edit = work.save_event(event("edit", "Edit me"))
    with RecordingProxy(radicale.port, refuse_sync=True) as proxy:
        source = CalDavSource(proxy.url, USER, PASSWORD)
        calendar = calendar_named(source, "Work")
        first = source.changes(calendar, None)
        assert first.full and first.token is None and len(first.changed) == 2
        known = {obj.href: obj.etag for obj in first.changed}
        known[calendar.location + "vanished.ics"] = '"old"'

        edit.icalendar_component["SUMMARY"] = "Edited"
        edit.save()
        later = source.changes(calendar, None, known)

    assert not later.full and later.token is None
    assert [(obj.uid, summary(obj.ics)) for obj in later.changed] == [("edit", "Edited")]
    assert later.deleted == [calendar.location + "vanished.ics"]


def test_offline_while_the_server_is_down_and_working_after_it_returns(
    radicale: RadicaleServer, work: caldav.Calendar
) -> None:
    source = CalDavSource(radicale.url, USER, PASSWORD, timeout_s=5)
    calendar = calendar_named(source, "Work")
    radicale.stop()
    try:
        with pytest.raises(Offline, match="could not be reached"):
            source.objects(calendar)
        with pytest.raises(Offline):
            source.put(calendar, "trip", event("trip", "Trip"), expected_etag=None)
    finally:
        radicale.start()

    saved = source.put(calendar, "trip", event("trip", "Trip"), expected_etag=None)
    assert [obj.uid for obj in source.objects(calendar)[0]] == ["trip"] and saved.etag


def test_a_wrong_password_says_the_login_failed(radicale: RadicaleServer) -> None:
    with pytest.raises(LoginFailed, match=r"Login to the calendar server 127\.0\.0\.1 failed"):
        CalDavSource(radicale.url, USER, "wrong").calendars()


def test_a_read_only_calendar_is_refused_before_anything_is_sent(proxy: RecordingProxy) -> None:
    source = CalDavSource(proxy.url, USER, PASSWORD)
    calendar = calendar_named(source, "Work")
    frozen = CalendarRef(calendar.name, "caldav", calendar.location, writable=False)

    with pytest.raises(ReadOnlyCalendar):
        source.put(frozen, "x", event("x", "X"), expected_etag=None)
    assert proxy.sent("PUT") == []
