"""Busy time and free slots, on wall-clock working hours across the autumn clock changes."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from hearth.connectors.calendar.errors import CalendarError
from hearth.connectors.calendar.freebusy import (
    WorkingHours,
    busy_periods,
    first_free_slot,
    free_slots,
)
from hearth.connectors.calendar.objects import Occurrence

BERLIN = ZoneInfo("Europe/Berlin")  # summer time ends Sunday 2026-10-25, 03:00 -> 02:00
NEW_YORK = ZoneInfo("America/New_York")  # daylight time ends Sunday 2026-11-01, 02:00 -> 01:00


def happening(
    start: datetime | date, end: datetime | date, *, busy: bool = True, title: str = "Busy"
) -> Occurrence:
    all_day = not isinstance(start, datetime)
    return Occurrence("Work", title, title, start, end, all_day=all_day, busy=busy)


def at(zone: ZoneInfo, day: int, hour: int, minute: int = 0, month: int = 10) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=zone)


def utc(slot: tuple[datetime, datetime]) -> tuple[str, str]:
    return (slot[0].astimezone(UTC).isoformat(), slot[1].astimezone(UTC).isoformat())


def test_overlapping_and_touching_events_merge_and_transparent_ones_are_free() -> None:
    found = busy_periods(
        [
            happening(at(BERLIN, 20, 11), at(BERLIN, 20, 12)),
            happening(at(BERLIN, 20, 9), at(BERLIN, 20, 10)),
            happening(at(BERLIN, 20, 9, 30), at(BERLIN, 20, 11)),
            happening(at(BERLIN, 20, 13), at(BERLIN, 20, 14), busy=False, title="Focus (free)"),
            happening(datetime(2026, 10, 20, 13, 0, tzinfo=UTC), datetime(2026, 10, 20, 14, 0)),
        ],
        BERLIN,
    )
    # The last one is 15:00 Berlin time to a naive 14:00, read as Berlin wall time: empty, gone.
    assert found == [(at(BERLIN, 20, 9), at(BERLIN, 20, 12))]
    assert all(start.tzinfo is BERLIN and end.tzinfo is BERLIN for start, end in found)


def test_an_all_day_event_takes_its_whole_local_day_even_when_it_has_25_hours() -> None:
    ((start, end),) = busy_periods([happening(date(2026, 10, 25), date(2026, 10, 26))], BERLIN)
    assert (start.isoformat(), end.isoformat()) == (
        "2026-10-25T00:00:00+02:00",
        "2026-10-26T00:00:00+01:00",
    )
    assert end.astimezone(UTC) - start.astimezone(UTC) == timedelta(hours=25)


def test_berlin_working_hours_stay_nine_to_five_on_the_wall_clock_across_the_change() -> None:
    busy = busy_periods(
        [
            happening(at(BERLIN, 23, 9), at(BERLIN, 23, 12)),
            happening(at(BERLIN, 26, 13), at(BERLIN, 26, 18)),
        ],
        BERLIN,
    )
    slots = free_slots(
        busy, at(BERLIN, 23, 0), at(BERLIN, 27, 0), timedelta(hours=1), BERLIN, WorkingHours()
    )
    assert [(start.isoformat(), end.isoformat()) for start, end in slots] == [
        ("2026-10-23T12:00:00+02:00", "2026-10-23T17:00:00+02:00"),  # Friday, summer time
        ("2026-10-26T09:00:00+01:00", "2026-10-26T13:00:00+01:00"),  # Monday, winter time
    ]
    assert [utc(slot) for slot in slots] == [
        ("2026-10-23T10:00:00+00:00", "2026-10-23T15:00:00+00:00"),
        ("2026-10-26T08:00:00+00:00", "2026-10-26T12:00:00+00:00"),
    ]


def test_new_york_hours_across_the_change_count_the_repeated_hour() -> None:
    # 00:30 to 03:00 on the wall clock that night is three and a half real hours.
    night = WorkingHours(start=time(0, 30), end=time(3, 0), days=frozenset({6}))
    window = (at(NEW_YORK, 31, 0), at(NEW_YORK, 2, 0, month=11))
    (slot,) = free_slots([], *window, timedelta(hours=3), NEW_YORK, night)
    assert (slot[0].isoformat(), slot[1].isoformat()) == (
        "2026-11-01T00:30:00-04:00",
        "2026-11-01T03:00:00-05:00",
    )
    first = first_free_slot([], *window, timedelta(hours=3, minutes=15), NEW_YORK, night)
    assert first is not None and utc(first) == (
        "2026-11-01T04:30:00+00:00",
        "2026-11-01T07:45:00+00:00",
    )
    assert first_free_slot([], *window, timedelta(hours=3, minutes=31), NEW_YORK, night) is None


def test_new_york_weekday_slots_open_at_nine_local_before_and_after_the_change() -> None:
    slots = free_slots(
        [],
        at(NEW_YORK, 30, 0),
        at(NEW_YORK, 3, 0, month=11),
        timedelta(hours=8),
        NEW_YORK,
        WorkingHours(),
    )
    assert [utc(slot)[0] for slot in slots] == [
        "2026-10-30T13:00:00+00:00",  # Friday 09:00 EDT
        "2026-11-02T14:00:00+00:00",  # Monday 09:00 EST
    ]


def test_any_time_search_finds_the_25_hour_day_between_two_busy_days() -> None:
    busy = busy_periods(
        [
            happening(date(2026, 10, 24), date(2026, 10, 25)),
            happening(date(2026, 10, 26), date(2026, 10, 27)),
        ],
        BERLIN,
    )
    window = (at(BERLIN, 24, 0), at(BERLIN, 27, 0))
    slots = free_slots(busy, *window, timedelta(hours=25), BERLIN, None)
    assert [utc(slot) for slot in slots] == [
        ("2026-10-24T22:00:00+00:00", "2026-10-25T23:00:00+00:00")
    ]
    assert free_slots(busy, *window, timedelta(hours=25, minutes=1), BERLIN, None) == []


def test_the_first_free_slot_is_the_earliest_gap_long_enough_and_exactly_as_long() -> None:
    busy = [
        (at(BERLIN, 20, 9), at(BERLIN, 20, 10)),
        (at(BERLIN, 20, 10, 30), at(BERLIN, 20, 12)),
    ]
    first = first_free_slot(
        busy, at(BERLIN, 20, 8), at(BERLIN, 21, 0), timedelta(hours=1), BERLIN, WorkingHours()
    )
    assert first == (at(BERLIN, 20, 12), at(BERLIN, 20, 13))
    short = first_free_slot(
        busy, at(BERLIN, 20, 8), at(BERLIN, 21, 0), timedelta(minutes=30), BERLIN, WorkingHours()
    )
    assert short == (at(BERLIN, 20, 10), at(BERLIN, 20, 10, 30))


def test_busy_time_outside_the_window_or_hours_does_not_shorten_slots() -> None:
    busy = [(at(BERLIN, 19, 12), at(BERLIN, 20, 8)), (at(BERLIN, 20, 18), at(BERLIN, 20, 20))]
    slots = free_slots(
        busy, at(BERLIN, 20, 0), at(BERLIN, 20, 16), timedelta(hours=1), BERLIN, WorkingHours()
    )
    assert slots == [(at(BERLIN, 20, 9), at(BERLIN, 20, 16))]


@pytest.mark.parametrize(
    ("duration", "end", "hours", "message"),
    [
        (timedelta(0), at(BERLIN, 21, 0), WorkingHours(), "more than zero"),
        (timedelta(hours=1), at(BERLIN, 20, 0), WorkingHours(), "must be after"),
        (timedelta(hours=1), at(BERLIN, 21, 0), WorkingHours(time(17), time(9)), "end after"),
    ],
)
def test_a_bad_search_is_refused(
    duration: timedelta, end: datetime, hours: WorkingHours, message: str
) -> None:
    with pytest.raises(CalendarError, match=message):
        free_slots([], at(BERLIN, 20, 0), end, duration, BERLIN, hours)
