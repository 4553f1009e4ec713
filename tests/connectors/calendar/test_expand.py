"""Expanding events into occurrences: recurrence, overrides, zones, all-day and bounds."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from hearth.connectors.calendar.errors import CalendarError
from hearth.connectors.calendar.expand import iso, occurrences, parse_when
from hearth.connectors.calendar.ics import read_calendar, split_objects
from tests.connectors.calendar import corpus

BERLIN, NEW_YORK = ZoneInfo("Europe/Berlin"), ZoneInfo("America/New_York")


def expand(*events: str, zone: ZoneInfo = BERLIN, start: str = "2026-12-01", days: int = 7):
    text = corpus.HEAD + "".join(events) + corpus.TAIL
    objects = split_objects(read_calendar(text, where="t.ics").calendar)
    begin = datetime.fromisoformat(start).replace(tzinfo=zone)
    pairs = [("Work", ics) for ics in objects.values()]
    return occurrences(pairs, begin, begin + timedelta(days=days), zone)


def test_override_and_exdate_in_a_daily_series() -> None:
    found, problems = expand(
        corpus.event(
            "standup",
            "SUMMARY:Standup",
            "DTSTART;TZID=Europe/Berlin:20261201T090000",
            "DTEND;TZID=Europe/Berlin:20261201T091500",
            "RRULE:FREQ=DAILY;COUNT=5",
            "EXDATE;TZID=Europe/Berlin:20261203T090000",
            "ATTENDEE;CN=Ann:MAILTO:Ann@Example.org",
            "ORGANIZER:mailto:Boss@Example.org",
        ),
        corpus.event(
            "standup",
            "SUMMARY:Standup (moved)",
            "RECURRENCE-ID;TZID=Europe/Berlin:20261202T090000",
            "DTSTART;TZID=Europe/Berlin:20261202T140000",
            "DTEND;TZID=Europe/Berlin:20261202T141500",
        ),
    )
    assert problems == []
    assert [o.start.day for o in found] == [1, 2, 4, 5]
    moved = found[1]
    assert (moved.title, moved.start.hour) == ("Standup (moved)", 14)
    assert moved.recurrence_id == "2026-12-02T09:00:00+01:00"
    assert parse_when(moved.recurrence_id, BERLIN) == datetime(2026, 12, 2, 9, tzinfo=BERLIN)
    assert found[0].attendees == ("ann@example.org",) and found[0].organizer == "boss@example.org"
    assert all(o.recurring and o.busy for o in found)


def test_weekly_berlin_event_keeps_local_time_across_dst_end() -> None:
    found, _ = expand(
        corpus.event("w", "DTSTART;TZID=Europe/Berlin:20261014T090000", "RRULE:FREQ=WEEKLY"),
        start="2026-10-14",
        days=21,
    )
    assert [o.start.hour for o in found] == [9, 9, 9]
    assert [o.start.utcoffset() for o in found] == [timedelta(hours=h) for h in (2, 2, 1)]


def test_us_event_across_november_change_seen_from_new_york() -> None:
    found, _ = expand(
        corpus.event("u", "DTSTART;TZID=America/Chicago:20261025T080000", "RRULE:FREQ=WEEKLY"),
        zone=NEW_YORK,
        start="2026-10-25",
        days=14,
    )
    assert [(o.start.hour, o.start.utcoffset()) for o in found] == [
        (9, timedelta(hours=-4)),
        (9, timedelta(hours=-5)),
    ]


def test_all_day_and_floating_events() -> None:
    found, _ = expand(
        corpus.event("day", "DTSTART;VALUE=DATE:20261203", "TRANSP:TRANSPARENT"),
        corpus.event("float", "DTSTART:20261202T150000", "STATUS:CANCELLED"),
        zone=NEW_YORK,
    )
    floating, day = found
    assert (floating.start, floating.busy) == (datetime(2026, 12, 2, 15, tzinfo=NEW_YORK), False)
    assert (day.start, day.end, day.all_day, day.busy) == (
        date(2026, 12, 3),
        date(2026, 12, 4),
        True,
        False,
    )
    assert day.recurrence_id is None and not day.recurring


def test_google_export_times_are_in_its_zone() -> None:
    text = (
        corpus.HEAD
        + "X-WR-TIMEZONE:Europe/Berlin\r\n"
        + corpus.event("g", "DTSTART:20261201T080000Z", "RRULE:FREQ=DAILY;COUNT=2")
        + corpus.TAIL
    )
    objects = split_objects(read_calendar(text, where="g.ics").calendar)
    start = datetime(2026, 12, 1, tzinfo=BERLIN)
    found, _ = occurrences([("G", objects["g"])], start, start + timedelta(days=3), BERLIN)
    assert [iso(o.start) for o in found] == [
        "2026-12-01T09:00:00+01:00",
        "2026-12-02T09:00:00+01:00",
    ]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("first", ["20261201T000000Z", "19700101T000000Z"])
def test_endless_secondly_rule_is_cut_with_a_problem(first: str) -> None:
    found, problems = expand(
        corpus.event("dense", "SUMMARY:Tick", f"DTSTART:{first}", "RRULE:FREQ=SECONDLY"), days=3650
    )
    assert len(found) <= 10000
    assert [p.component for p in problems] == ["VEVENT 'Tick'"]
    assert "repeats too often" in problems[0].message


@pytest.mark.timeout(60)
def test_every_corpus_sample_expands_without_error() -> None:
    for text in corpus.samples().values():
        objects = split_objects(read_calendar(text, where="bad.ics").calendar)
        start = datetime(2026, 11, 1, tzinfo=BERLIN)
        found, _ = occurrences(
            [("C", o) for o in objects.values()], start, start + timedelta(days=60), BERLIN
        )
        assert "good" in [o.uid for o in found]


def test_unreadable_object_is_reported() -> None:
    start = datetime(2026, 12, 1, tzinfo=BERLIN)
    found, problems = occurrences([("C", "garbage")], start, start + timedelta(days=1), BERLIN)
    assert found == [] and problems[0].where == "C"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-12-03", date(2026, 12, 3)),
        ("2026-12-03T15:00", datetime(2026, 12, 3, 15, tzinfo=BERLIN)),
        ("2026-12-03T14:00Z", datetime(2026, 12, 3, 15, tzinfo=BERLIN)),
        ("2026-12-03T09:00-05:00", datetime(2026, 12, 3, 15, tzinfo=BERLIN)),
    ],
)
def test_parse_when_reads_what_a_model_writes(text: str, expected: object) -> None:
    value = parse_when(text, BERLIN)
    assert value == expected and parse_when(iso(value), BERLIN) == value
    assert getattr(value, "tzinfo", BERLIN) == BERLIN


@pytest.mark.parametrize("text", ["tomorrow", "", "2026-13-03", "2026-12-03T25:00", "03/12/2026"])
def test_parse_when_refuses_other_text(text: str) -> None:
    with pytest.raises(CalendarError, match="2026-12-03T15:00"):
        parse_when(text, BERLIN)


def test_parse_when_refuses_a_time_the_clocks_skip() -> None:
    with pytest.raises(CalendarError, match="does not exist"):
        parse_when("2026-03-29T02:30", BERLIN)
