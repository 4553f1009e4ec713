"""Reading ICS text: bad components are reported with their line and dropped, never fatal."""

from __future__ import annotations

import icalendar
import pytest

from hearth.connectors.calendar.errors import BadCalendarData
from hearth.connectors.calendar.ics import (
    MAX_ICS_BYTES,
    join_objects,
    object_hash,
    read_calendar,
    split_objects,
)
from tests.connectors.calendar import corpus

SERIES = corpus.HEAD + (
    "X-WR-CALNAME:Work\r\n"
    "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\n"
    "TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
    + corpus.event("standup", "DTSTART;TZID=Europe/Berlin:20261201T090000", "RRULE:FREQ=DAILY")
    + corpus.event(
        "standup",
        "RECURRENCE-ID;TZID=Europe/Berlin:20261202T090000",
        "DTSTART;TZID=Europe/Berlin:20261202T110000",
    )
    + corpus.GOOD
    + corpus.TAIL
)


def uids(text: str | bytes) -> list[str]:
    parsed = read_calendar(text, where="t.ics")
    return [str(c["UID"]) for c in parsed.calendar.walk("VEVENT")]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(corpus.samples()))
def test_malformed_sample_keeps_the_good_event_and_reports_with_place(name: str) -> None:
    parsed = read_calendar(corpus.samples()[name], where="bad.ics")
    assert "good" in [str(c["UID"]) for c in parsed.calendar.walk("VEVENT")]
    for problem in parsed.problems:
        assert problem.where == "bad.ics" and problem.component and problem.message
    split_objects(parsed.calendar)


@pytest.mark.parametrize(
    ("name", "line", "words"),
    [
        ("truncated event", 9, "ends before END:VEVENT"),
        ("bad date", 4, "2026-13-45"),
        ("bad tzid", 4, "Mars/Olympus"),
        ("missing dtstart", 4, "no DTSTART"),
        ("missing uid", 4, "no UID"),
        ("10 MB description", 4, "DESCRIPTION cut"),
        ("nested begin without end", 4, "does not close BEGIN:VALARM"),
        ("event inside event", 4, "no END:VEVENT before line 7"),
        ("bad line", 4, "left out"),
    ],
)
def test_each_problem_names_the_component_line(name: str, line: int, words: str) -> None:
    problems = read_calendar(corpus.samples()[name], where="bad.ics").problems
    assert any(p.line == line and words in p.message for p in problems), problems


def test_unknown_tzid_is_read_as_utc_without_default_zone() -> None:
    parsed = read_calendar(corpus.samples()["bad tzid"], where="t.ics")
    event = next(e for e in parsed.calendar.walk("VEVENT") if e["UID"] == "bad-tz")
    assert event.decoded("DTSTART").utcoffset().total_seconds() == 0


def test_missing_uid_is_derived_the_same_each_read() -> None:
    assert uids(corpus.samples()["missing uid"]) == uids(corpus.samples()["missing uid"])


def test_long_description_is_cut_to_the_cap() -> None:
    parsed = read_calendar(corpus.samples()["10 MB description"], where="t.ics")
    event = next(e for e in parsed.calendar.walk("VEVENT") if e["UID"] == "long")
    assert 60_000 < len(str(event["DESCRIPTION"])) <= 64 * 1024


@pytest.mark.parametrize("name", sorted(corpus.not_calendars()))
def test_text_without_a_calendar_is_refused(name: str) -> None:
    with pytest.raises(BadCalendarData, match="not an iCalendar"):
        read_calendar(corpus.not_calendars()[name], where="t.ics")


def test_oversized_text_is_refused() -> None:
    with pytest.raises(BadCalendarData, match="bytes"):
        read_calendar(b" " * (MAX_ICS_BYTES + 1), where="t.ics")


def test_slow_reading_skips_the_rest_and_says_so() -> None:
    parsed = read_calendar(SERIES, where="t.ics", time_limit_s=0)
    assert parsed.calendar.walk("VEVENT") == []
    assert all("took too long" in p.message for p in parsed.problems)


def test_google_export_with_x_wr_timezone_is_made_standard() -> None:
    text = corpus.HEAD + "X-WR-TIMEZONE:Europe/Berlin\r\n" + corpus.GOOD + corpus.TAIL
    parsed = read_calendar(text, where="t.ics")
    start = parsed.calendar.walk("VEVENT")[0].decoded("DTSTART")
    assert parsed.default_zone == "Europe/Berlin"
    assert (str(start.tzinfo), start.hour) == ("Europe/Berlin", 10)


def test_unknown_tzid_uses_the_default_zone() -> None:
    text = corpus.wrap(corpus.event("x", "DTSTART;TZID=Mars/Olympus:20261201T100000"))
    text = text.replace("PRODID:-//Corpus//EN", "PRODID:x\r\nX-WR-TIMEZONE:America/New_York")
    parsed = read_calendar(text, where="t.ics")
    event = next(e for e in parsed.calendar.walk("VEVENT") if e["UID"] == "x")
    assert str(event.decoded("DTSTART").tzinfo) == "America/New_York"
    assert any("read as America/New_York" in p.message for p in parsed.problems)


def test_split_and_join_round_trip_keeps_overrides_and_zones() -> None:
    parsed = read_calendar(SERIES, where="t.ics")
    assert parsed.name == "Work" and parsed.problems == []
    objects = split_objects(parsed.calendar)
    assert sorted(objects) == ["good", "standup"]
    standup = icalendar.Calendar.from_ical(objects["standup"])
    assert len(standup.walk("VEVENT")) == 2 and len(standup.walk("VTIMEZONE")) == 1
    assert icalendar.Calendar.from_ical(objects["good"]).walk("VTIMEZONE") == []
    joined = join_objects([*objects.values(), objects["standup"]], name="Work")
    again = read_calendar(joined, where="j.ics")
    assert again.name == "Work" and len(again.calendar.walk("VTIMEZONE")) == 1
    good = icalendar.Calendar.from_ical(split_objects(again.calendar)["good"]).walk("VEVENT")
    assert (
        good[0].to_ical()
        == icalendar.Calendar.from_ical(objects["good"]).walk("VEVENT")[0].to_ical()
    )


def test_object_hash_ignores_folding_and_line_endings() -> None:
    text = split_objects(read_calendar(SERIES, where="t.ics").calendar)["standup"]
    assert object_hash(text) == object_hash(text.replace("\r\n", "\n"))
    assert object_hash(text) != object_hash(text.replace("090000", "100000"))
