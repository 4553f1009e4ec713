"""Free and busy time: when the user is taken, and where a meeting of a given length fits.

All arithmetic is done on UTC instants and only the working hours are read as wall-clock
times in the user's zone. Python subtracts and compares two datetimes that share a tzinfo by
their wall clocks, which would make a 25-hour day look like 24; working in UTC avoids that.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from hearth.connectors.calendar.errors import CalendarError
from hearth.connectors.calendar.objects import Occurrence

Period = tuple[datetime, datetime]


@dataclass(frozen=True)
class WorkingHours:
    """The wall-clock hours of the working days (0 is Monday) when slots may be offered."""

    start: time = time(9)
    end: time = time(17)
    days: frozenset[int] = frozenset(range(5))


def busy_periods(occurrences: Iterable[Occurrence], zone: ZoneInfo) -> list[Period]:
    """The times taken by busy occurrences, merged and sorted, as aware datetimes in `zone`.

    All-day events take their whole local days in `zone`; floating times are read there too.
    """
    periods = [
        (_instant(occurrence.start, zone), _instant(occurrence.end, zone))
        for occurrence in occurrences
        if occurrence.busy
    ]
    return [(start.astimezone(zone), end.astimezone(zone)) for start, end in _merged(periods)]


def free_slots(
    busy: Iterable[Period],
    start: datetime,
    end: datetime,
    duration: timedelta,
    zone: ZoneInfo,
    hours: WorkingHours | None,
) -> list[Period]:
    """The free stretches of at least `duration` within [start, end), inside working hours.

    `hours` None means any time of any day. Naive datetimes are read in `zone`.
    """
    if duration <= timedelta(0):
        raise CalendarError("the length of the slot must be more than zero")
    window = (_instant(start, zone), _instant(end, zone))
    if not window[1] > window[0]:
        raise CalendarError(f"the search end ({end}) must be after its start ({start})")
    allowed = [window] if hours is None else _working_periods(window, zone, hours)
    taken = _merged([(_instant(a, zone), _instant(b, zone)) for a, b in busy])
    return [
        (slot_start.astimezone(zone), slot_end.astimezone(zone))
        for period in allowed
        for slot_start, slot_end in _without(period, taken)
        if slot_end - slot_start >= duration
    ]


def first_free_slot(
    busy: Iterable[Period],
    start: datetime,
    end: datetime,
    duration: timedelta,
    zone: ZoneInfo,
    hours: WorkingHours | None,
) -> Period | None:
    """The earliest free slot of exactly `duration`, or None when nothing fits."""
    for slot_start, _ in free_slots(busy, start, end, duration, zone, hours):
        return slot_start, (slot_start.astimezone(UTC) + duration).astimezone(zone)
    return None


def _working_periods(window: Period, zone: ZoneInfo, hours: WorkingHours) -> list[Period]:
    """The working hours of each working day in the window, clipped to it, in UTC."""
    if not hours.end > hours.start:
        raise CalendarError("working hours must end after they start on the same day")
    periods = []
    day = window[0].astimezone(zone).date()
    last = window[1].astimezone(zone).date()
    while day <= last:
        if day.weekday() in hours.days:
            opens = _instant(datetime.combine(day, hours.start), zone)
            closes = _instant(datetime.combine(day, hours.end), zone)
            clipped = (max(opens, window[0]), min(closes, window[1]))
            if clipped[1] > clipped[0]:
                periods.append(clipped)
        day += timedelta(days=1)
    return periods


def _without(period: Period, taken: list[Period]) -> list[Period]:
    """`period` minus the (sorted, merged) taken periods."""
    free = []
    cursor, stop = period
    for busy_start, busy_end in taken:
        if busy_end <= cursor:
            continue
        if busy_start >= stop:
            break
        if busy_start > cursor:
            free.append((cursor, busy_start))
        cursor = max(cursor, busy_end)
    if stop > cursor:
        free.append((cursor, stop))
    return free


def _merged(periods: list[Period]) -> list[Period]:
    """Sorted periods with overlapping or touching ones joined; empty ones dropped."""
    merged: list[Period] = []
    for start, end in sorted(period for period in periods if period[1] > period[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _instant(value: datetime | date, zone: ZoneInfo) -> datetime:
    """`value` as a UTC instant: a date is its local midnight, a naive time is local wall time."""
    if not isinstance(value, datetime):
        value = datetime.combine(value, time())
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone)
    return value.astimezone(UTC)
