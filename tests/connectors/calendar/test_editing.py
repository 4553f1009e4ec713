"""Making and changing event objects, proven by reading them back with icalendar and expanding
them with recurring-ical-events as any other client would."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events

from hearth.connectors.calendar.editing import (
    EventFields,
    attendees_of,
    change_object,
    event_uid,
    new_object,
    remove_occurrence,
)
from hearth.connectors.calendar.errors import BadCalendarData, CalendarError, EventNotFound
from hearth.connectors.calendar.eventview import view

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 2, 1, 12, 0, tzinfo=UTC)
LATER = datetime(2026, 2, 2, 8, 30, tzinfo=UTC)


def parsed(ics: str) -> icalendar.Calendar:
    calendar = icalendar.Calendar.from_ical(ics)
    assert isinstance(calendar, icalendar.Calendar)
    return calendar


def expanded(ics: str, first: date, last: date) -> list[tuple[datetime | date, str]]:
    """(start, title) of every instance other clients would show, in time order."""
    instances = recurring_ical_events.of(parsed(ics)).between(first, last)
    found = [(event["DTSTART"].dt, str(event["SUMMARY"])) for event in instances]
    return sorted(found, key=lambda item: str(item[0]))


def master(ics: str) -> icalendar.Event:
    (main,) = [event for event in parsed(ics).walk("VEVENT") if "RECURRENCE-ID" not in event]
    return main


def overrides(ics: str) -> list[icalendar.Event]:
    return [event for event in parsed(ics).walk("VEVENT") if "RECURRENCE-ID" in event]


def weekly_standup(count: int = 6) -> str:
    """Mondays 09:00-09:30 Berlin time from 2 March 2026: crosses the switch to summer time."""
    start = datetime(2026, 3, 2, 9, 0)
    ics = new_object(
        "standup@hearth",
        EventFields("Standup", start, start + timedelta(minutes=30)),
        BERLIN,
        now=NOW,
    )
    calendar = parsed(ics)
    calendar.walk("VEVENT")[0].add("rrule", {"freq": "weekly", "byday": "MO", "count": count})
    return calendar.to_ical().decode()


def test_a_timed_event_is_written_in_the_users_zone_with_its_vtimezone() -> None:
    fields = EventFields("Dentist", datetime(2026, 3, 3, 14, 0), datetime(2026, 3, 3, 15, 0))
    ics = new_object("d@hearth", fields, BERLIN, now=NOW)
    calendar = parsed(ics)
    assert (
        str(calendar["PRODID"]) == "-//Hearth//Calendar//EN" and str(calendar["VERSION"]) == "2.0"
    )
    assert [str(zone["TZID"]) for zone in calendar.walk("VTIMEZONE")] == ["Europe/Berlin"]
    assert "DTSTART;TZID=Europe/Berlin:20260303T140000" in ics.splitlines()
    assert "DTEND;TZID=Europe/Berlin:20260303T150000" in ics.splitlines()
    event = master(ics)
    assert (str(event["UID"]), str(event["SUMMARY"]), event["SEQUENCE"]) == (
        "d@hearth",
        "Dentist",
        0,
    )
    assert event["DTSTAMP"].dt == NOW and event["CREATED"].dt == NOW
    assert "ATTENDEE" not in event and "ORGANIZER" not in event
    assert expanded(ics, date(2026, 3, 1), date(2026, 3, 31)) == [
        (datetime(2026, 3, 3, 14, 0, tzinfo=BERLIN), "Dentist")
    ]


def test_an_aware_time_is_moved_into_the_users_zone() -> None:
    start = datetime(2026, 7, 1, 7, 0, tzinfo=UTC)
    ics = new_object(
        "u@hearth", EventFields("Call", start, start + timedelta(hours=1)), BERLIN, now=NOW
    )
    assert "DTSTART;TZID=Europe/Berlin:20260701T090000" in ics.splitlines()


def test_an_all_day_event_uses_dates_and_no_time_zone() -> None:
    fields = EventFields("Holiday", date(2026, 4, 6), date(2026, 4, 8), location="Lake")
    ics = new_object("h@hearth", fields, BERLIN, now=NOW)
    assert "DTSTART;VALUE=DATE:20260406" in ics.splitlines()
    assert "DTEND;VALUE=DATE:20260408" in ics.splitlines()
    assert parsed(ics).walk("VTIMEZONE") == []
    assert str(master(ics)["LOCATION"]) == "Lake"
    assert expanded(ics, date(2026, 4, 1), date(2026, 4, 30)) == [(date(2026, 4, 6), "Holiday")]


def test_attendees_are_invited_by_the_organizer() -> None:
    start = datetime(2026, 3, 3, 10, 0)
    fields = EventFields(
        "Review",
        start,
        start + timedelta(hours=1),
        attendees=("Ann@Example.org", "mailto:bo@example.org", "ann@example.org"),
    )
    ics = new_object("r@hearth", fields, BERLIN, organizer="me@example.org", now=NOW)
    event = master(ics)
    assert str(event["ORGANIZER"]) == "mailto:me@example.org"
    invited = event["ATTENDEE"]
    assert [str(prop) for prop in invited] == ["mailto:Ann@Example.org", "mailto:bo@example.org"]
    for prop in invited:
        assert prop.params["PARTSTAT"] == "NEEDS-ACTION" and prop.params["RSVP"] == "TRUE"
    assert attendees_of(ics) == ["ann@example.org", "bo@example.org"]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (EventFields("Late", datetime(2026, 3, 3, 10), datetime(2026, 3, 3, 9)), "must be after"),
        (EventFields("Zero", date(2026, 3, 3), date(2026, 3, 3)), "must be after"),
        (EventFields("Mixed", date(2026, 3, 3), datetime(2026, 3, 4, 9)), "must both be dates"),
        (EventFields("  ", datetime(2026, 3, 3, 9), datetime(2026, 3, 3, 10)), "needs a title"),
        (
            EventFields(
                "Bad", datetime(2026, 3, 3, 9), datetime(2026, 3, 3, 10), attendees=("bob",)
            ),
            "not an email address",
        ),
        (
            EventFields(
                "Spoof",
                datetime(2026, 3, 3, 9),
                datetime(2026, 3, 3, 10),
                attendees=("eve@exa\u202emple.org",),
            ),
            "not an email address",
        ),
    ],
)
def test_a_bad_new_event_is_refused_with_the_reason(fields: EventFields, message: str) -> None:
    with pytest.raises(CalendarError, match=message):
        new_object("x@hearth", fields, BERLIN, now=NOW)


def test_event_uids_are_unique_and_marked_as_hearths() -> None:
    first, second = event_uid(), event_uid()
    assert first != second and first.endswith("@hearth") and second.endswith("@hearth")


def test_changing_the_series_changes_every_occurrence_and_bumps_the_sequence() -> None:
    ics = change_object(
        weekly_standup(), {"title": "Daily sync"}, BERLIN, occurrence=None, now=LATER
    )
    titles = {title for _, title in expanded(ics, date(2026, 3, 1), date(2026, 5, 1))}
    assert titles == {"Daily sync"}
    event = master(ics)
    assert event["SEQUENCE"] == 1
    assert event["DTSTAMP"].dt == LATER and event["LAST-MODIFIED"].dt == LATER


def test_moving_a_series_keeps_its_wall_clock_time_and_duration_across_dst() -> None:
    changes = {"start": datetime(2026, 3, 2, 10, 0)}
    ics = change_object(weekly_standup(), changes, BERLIN, occurrence=None, now=LATER)
    starts = [start for start, _ in expanded(ics, date(2026, 3, 1), date(2026, 5, 1))]
    assert [start.hour for start in starts] == [10] * 6  # 10:00 in both CET and CEST
    assert [start.utcoffset() for start in starts[3:]] == [timedelta(hours=1)] + [
        timedelta(hours=2)
    ] * 2
    assert master(ics)["DTEND"].dt == datetime(2026, 3, 2, 10, 30, tzinfo=BERLIN)


def test_changing_one_occurrence_moves_only_that_one_and_leaves_the_master_alone() -> None:
    before = weekly_standup()
    # The fourth Monday is in summer time; expansion names it with its +02:00 offset.
    ics = change_object(
        before,
        {"start": datetime(2026, 3, 23, 11, 0), "location": "Room 4"},
        BERLIN,
        occurrence="2026-03-23T09:00:00+01:00",
        now=LATER,
    )
    ics = change_object(
        ics,
        {"title": "Standup (moved)"},
        BERLIN,
        occurrence="2026-03-23T09:00:00+01:00",
        now=LATER,
    )
    assert expanded(ics, date(2026, 3, 1), date(2026, 5, 1)) == [
        (datetime(2026, 3, 2, 9, 0, tzinfo=BERLIN), "Standup"),
        (datetime(2026, 3, 9, 9, 0, tzinfo=BERLIN), "Standup"),
        (datetime(2026, 3, 16, 9, 0, tzinfo=BERLIN), "Standup"),
        (datetime(2026, 3, 23, 11, 0, tzinfo=BERLIN), "Standup (moved)"),
        (datetime(2026, 3, 30, 9, 0, tzinfo=BERLIN), "Standup"),
        (datetime(2026, 4, 6, 9, 0, tzinfo=BERLIN), "Standup"),
    ]
    assert master(ics).to_ical() == master(before).to_ical()
    (override,) = overrides(ics)
    assert "RECURRENCE-ID;TZID=Europe/Berlin:20260323T090000" in ics.splitlines()
    assert "RRULE" not in override and str(override["LOCATION"]) == "Room 4"
    assert override["DTEND"].dt == datetime(2026, 3, 23, 11, 30, tzinfo=BERLIN)
    assert override["SEQUENCE"] == 2  # copied from the master's 0, then changed twice


def test_an_occurrence_is_found_whatever_offset_names_its_start() -> None:
    ics = change_object(
        weekly_standup(),
        {"title": "Planning"},
        BERLIN,
        occurrence="2026-03-30T07:00:00+00:00",
        now=LATER,
    )
    assert (datetime(2026, 3, 30, 9, 0, tzinfo=BERLIN), "Planning") in expanded(
        ics, date(2026, 3, 1), date(2026, 5, 1)
    )


@pytest.mark.parametrize(
    "occurrence",
    ["2026-03-24T09:00:00+01:00", "2026-03-23T10:00:00+01:00", "2026-04-13T09:00:00+02:00"],
)
def test_an_occurrence_that_is_not_in_the_series_is_not_found(occurrence: str) -> None:
    with pytest.raises(EventNotFound, match="no occurrence starting"):
        change_object(weekly_standup(), {"title": "X"}, BERLIN, occurrence=occurrence, now=LATER)
    with pytest.raises(EventNotFound):
        remove_occurrence(weekly_standup(), occurrence, now=LATER)


def test_a_one_off_event_has_no_occurrences_to_change() -> None:
    start = datetime(2026, 3, 3, 9, 0)
    ics = new_object(
        "o@hearth", EventFields("Once", start, start + timedelta(hours=1)), BERLIN, now=NOW
    )
    with pytest.raises(EventNotFound, match="does not repeat"):
        change_object(
            ics, {"title": "X"}, BERLIN, occurrence="2026-03-03T09:00:00+01:00", now=LATER
        )


def test_a_series_with_changed_occurrences_refuses_to_move_but_takes_other_changes() -> None:
    ics = change_object(
        weekly_standup(),
        {"location": "Room 4"},
        BERLIN,
        occurrence="2026-03-09T09:00:00+01:00",
        now=LATER,
    )
    with pytest.raises(CalendarError, match="change its occurrences one by one"):
        change_object(ics, {"start": datetime(2026, 3, 2, 10)}, BERLIN, occurrence=None, now=LATER)
    renamed = change_object(ics, {"title": "Sync"}, BERLIN, occurrence=None, now=LATER)
    assert {title for _, title in expanded(renamed, date(2026, 3, 1), date(2026, 5, 1))} == {"Sync"}


def test_a_series_with_removed_occurrences_refuses_to_move() -> None:
    ics = remove_occurrence(weekly_standup(), "2026-03-09T09:00:00+01:00", now=LATER)
    with pytest.raises(CalendarError, match="one by one"):
        change_object(ics, {"start": datetime(2026, 3, 2, 10)}, BERLIN, occurrence=None, now=LATER)


def test_removing_an_occurrence_excludes_it_and_drops_its_override() -> None:
    ics = change_object(
        weekly_standup(),
        {"start": datetime(2026, 3, 30, 15, 0)},
        BERLIN,
        occurrence="2026-03-30T09:00:00+02:00",
        now=LATER,
    )
    ics = remove_occurrence(ics, "2026-03-30T09:00:00+02:00", now=LATER)
    ics = remove_occurrence(ics, "2026-03-09T09:00:00+01:00", now=LATER)
    assert "EXDATE;TZID=Europe/Berlin:20260330T090000" in ics.splitlines()
    assert "EXDATE;TZID=Europe/Berlin:20260309T090000" in ics.splitlines()
    assert overrides(ics) == []
    assert [start.day for start, _ in expanded(ics, date(2026, 3, 1), date(2026, 5, 1))] == [
        2,
        16,
        23,
        6,
    ]
    assert master(ics)["SEQUENCE"] == 2


def test_all_day_series_occurrences_are_named_by_their_date() -> None:
    fields = EventFields("Bins out", date(2026, 3, 4), date(2026, 3, 5))
    calendar = parsed(new_object("b@hearth", fields, BERLIN, now=NOW))
    calendar.walk("VEVENT")[0].add("rrule", {"freq": "weekly", "count": 4})
    ics = change_object(
        calendar.to_ical().decode(),
        {"title": "Bins out (late)"},
        BERLIN,
        occurrence="2026-03-11",
        now=LATER,
    )
    assert "RECURRENCE-ID;VALUE=DATE:20260311" in ics.splitlines()
    ics = remove_occurrence(ics, "2026-03-18", now=LATER)
    assert expanded(ics, date(2026, 3, 1), date(2026, 4, 30)) == [
        (date(2026, 3, 4), "Bins out"),
        (date(2026, 3, 11), "Bins out (late)"),
        (date(2026, 3, 25), "Bins out"),
    ]
    with pytest.raises(EventNotFound):
        remove_occurrence(ics, "2026-03-11T00:00:00+01:00", now=LATER)


def test_a_moved_start_without_an_end_keeps_the_duration_and_attendees_keep_their_answers() -> None:
    start = datetime(2026, 3, 3, 9, 0)
    fields = EventFields("Review", start, start + timedelta(minutes=45), attendees=("a@x.org",))
    calendar = parsed(new_object("r@hearth", fields, BERLIN, organizer="me@x.org", now=NOW))
    calendar.walk("VEVENT")[0]["ATTENDEE"].params["PARTSTAT"] = "ACCEPTED"
    changes = {"start": datetime(2026, 3, 5, 16, 0), "attendees": ["A@x.org", "c@x.org"]}
    ics = change_object(calendar.to_ical().decode(), changes, BERLIN, occurrence=None, now=LATER)
    event = master(ics)
    assert event["DTEND"].dt == datetime(2026, 3, 5, 16, 45, tzinfo=BERLIN)
    answers = {str(prop).lower(): prop.params["PARTSTAT"] for prop in event["ATTENDEE"]}
    assert answers == {"mailto:a@x.org": "ACCEPTED", "mailto:c@x.org": "NEEDS-ACTION"}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"end": datetime(2026, 3, 2, 8, 0)}, "must be after"),
        ({"title": ""}, "needs a title"),
        ({"attendees": ["not an address"]}, "not an email address"),
        ({"colour": "red"}, "cannot change colour"),
    ],
)
def test_a_bad_change_is_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(CalendarError, match=message):
        change_object(weekly_standup(), changes, BERLIN, occurrence=None, now=LATER)


@pytest.mark.parametrize(
    "text",
    [
        "hello",
        "BEGIN:VEVENT\r\nUID:a\r\nDTSTART:20260302T090000Z\r\nEND:VEVENT\r\n",
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n",
    ],
)
def test_text_that_is_not_one_events_calendar_is_bad_data(text: str) -> None:
    with pytest.raises(BadCalendarData):
        change_object(text, {"title": "X"}, BERLIN, occurrence=None, now=LATER)


def test_view_shows_the_series_an_instance_and_an_override() -> None:
    ics = change_object(
        weekly_standup(),
        {"title": "Long standup", "end": datetime(2026, 3, 16, 10, 0)},
        BERLIN,
        occurrence="2026-03-16T09:00:00+01:00",
        now=LATER,
    )
    series = view(ics, BERLIN)
    assert (series.title, series.recurring, series.rule) == (
        "Standup",
        True,
        "every week on Monday, 6 times",
    )
    assert series.start == datetime(2026, 3, 2, 9, 0, tzinfo=BERLIN) and series.occurrence is None
    instance = view(ics, ZoneInfo("America/New_York"), "2026-03-30T09:00:00+02:00")
    assert instance.title == "Standup" and instance.start.isoformat() == "2026-03-30T03:00:00-04:00"
    assert instance.end - instance.start == timedelta(minutes=30)
    changed = view(ics, BERLIN, "2026-03-16T09:00:00+01:00")
    assert (changed.title, changed.end) == (
        "Long standup",
        datetime(2026, 3, 16, 10, 0, tzinfo=BERLIN),
    )
