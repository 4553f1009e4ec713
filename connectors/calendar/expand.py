"""Turn stored event objects into the occurrences of a time range, in the user's zone.

Expansion is bounded before it starts: a rule that repeats more densely than the range can hold
(FREQ=SECONDLY with no end) is only expanded as far as `limit` instances need, and how far the
underlying rule engine must step from DTSTART is capped, so no rule can run for long.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import icalendar
import recurring_ical_events

from hearth.connectors.calendar.errors import CalendarError
from hearth.connectors.calendar.objects import Occurrence, Problem

MAX_RULE_STEPS = 200_000  # steps from DTSTART the rule engine may take per object
_SPACING = {
    "SECONDLY": timedelta(seconds=1),
    "MINUTELY": timedelta(minutes=1),
    "HOURLY": timedelta(hours=1),
    "DAILY": timedelta(days=1),
    "WEEKLY": timedelta(days=7),
    "MONTHLY": timedelta(days=28),
    "YEARLY": timedelta(days=365),
}
_EXPANDING = ("BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def occurrences(
    objects: Iterable[tuple[str, str]],
    start: datetime,
    end: datetime,
    zone: ZoneInfo,
    *,
    limit: int = 10000,
    time_limit_s: float = 5.0,
) -> tuple[list[Occurrence], list[Problem]]:
    """Expand (calendar name, object text) pairs into the occurrences overlapping [start, end).

    The result is sorted by start and holds at most `limit` occurrences; whatever was cut off,
    could not be read, or was not reached before the time limit is reported as a Problem.
    """
    deadline = time.monotonic() + time_limit_s
    start, end = _in_zone(start, zone), _in_zone(end, zone)
    found: list[Occurrence] = []
    problems: list[Problem] = []
    for calendar_name, text in objects:
        if time.monotonic() > deadline:
            message = f"not all events were listed: listing took over {time_limit_s:g} s"
            problems.append(Problem(calendar_name, None, "calendar", message))
            break
        found.extend(_expand(calendar_name, text, start, end, zone, limit, problems))
    found.sort(key=lambda occurrence: (_moment(occurrence.start, zone), occurrence.uid))
    if len(found) > limit:
        cut = f"only the first {limit} occurrences are listed; ask for a shorter range"
        problems.append(Problem(found[limit].calendar, None, "calendar", cut))
        found = found[:limit]
    return found, problems


def parse_when(text: str, zone: ZoneInfo) -> datetime | date:
    """Read a day ("2026-12-03") or a time ("2026-12-03T15:00", offset or Z optional).

    A time without offset is in `zone`; every time is returned as an aware datetime in `zone`.
    """
    value = text.strip()
    try:
        if _DAY.fullmatch(value):
            return date.fromisoformat(value)
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}.*", value, re.IGNORECASE):
            raise ValueError(value)
        moment = datetime.fromisoformat(value.upper().replace(" ", "T"))
    except ValueError:
        raise CalendarError(
            f"'{text}' is not a date or time: write 2026-12-03 for a day, or 2026-12-03T15:00 "
            "for a time (optionally ending in Z or an offset such as +01:00)"
        ) from None
    if moment.tzinfo is not None:
        return moment.astimezone(zone)
    local = moment.replace(tzinfo=zone)
    if local.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != moment:
        raise CalendarError(f"{value} does not exist in {zone.key}: the clocks skip that hour")
    return local


def iso(value: datetime | date) -> str:
    """ISO 8601 text for a date or a time; parse_when reads it back to the same value."""
    return value.isoformat()


def _expand(
    calendar_name: str,
    text: str,
    start: datetime,
    end: datetime,
    zone: ZoneInfo,
    limit: int,
    problems: list[Problem],
) -> list[Occurrence]:
    try:
        calendar = icalendar.Calendar.from_ical(text)
        events = calendar.walk("VEVENT")
    except ValueError as error:
        problems.append(Problem(calendar_name, None, "event", f"not read: {error}"))
        return []
    label = _label(events)
    stop = _safe_stop(events, start, end, zone, limit)
    if stop < end:
        shown = "nothing was listed" if stop <= start else f"it is listed only until {iso(stop)}"
        problems.append(Problem(calendar_name, None, label, f"repeats too often; {shown}"))
        if stop <= start:
            return []
    recurring = any(key in event for event in events for key in ("RRULE", "RDATE", "RECURRENCE-ID"))
    try:
        query = recurring_ical_events.of(calendar, keep_recurrence_attributes=True)
        instances = query.between(start, stop)
        return [_occurrence(calendar_name, item, zone, recurring) for item in instances]
    except (ValueError, TypeError, OverflowError, icalendar.InvalidCalendar) as error:
        problems.append(Problem(calendar_name, None, label, f"could not be expanded: {error}"))
        return []


def _safe_stop(
    events: list[icalendar.Component], start: datetime, end: datetime, zone: ZoneInfo, limit: int
) -> datetime:
    """How far the range can be expanded before a dense rule costs too many steps."""
    stop = end
    for event in events:
        rules = event.get("RRULE")
        for rule in rules if isinstance(rules, list) else [rules] if rules else []:
            spacing = _spacing(rule)
            count = rule.get("COUNT", [None])[0]
            if spacing is None or (count is not None and int(count) <= min(limit, MAX_RULE_STEPS)):
                continue
            first = _moment(event.decoded("DTSTART"), zone)
            try:
                stop = min(stop, first + spacing * MAX_RULE_STEPS)
                stop = min(stop, max(first, start) + spacing * limit)
            except OverflowError:
                continue
    return stop


def _spacing(rule: icalendar.vRecur) -> timedelta | None:
    """The shortest average gap between instances the rule can produce."""
    freq = str(rule.get("FREQ", [""])[0]).upper()
    if freq not in _SPACING:
        return None
    interval = max(int(rule.get("INTERVAL", [1])[0]), 1)
    per_period = math.prod(len(rule.get(key, [None])) for key in _EXPANDING)
    return _SPACING[freq] * interval / per_period


def _occurrence(
    calendar_name: str, event: icalendar.Component, zone: ZoneInfo, recurring: bool
) -> Occurrence:
    start = event.decoded("DTSTART")
    end = event.decoded("DTEND") if "DTEND" in event else start
    all_day = not isinstance(start, datetime)
    if not all_day:
        start, end = _in_zone(start, zone), _in_zone(end, zone)
    original = event.decoded("RECURRENCE-ID") if "RECURRENCE-ID" in event else start
    if isinstance(original, datetime):
        original = _in_zone(original, zone)
    return Occurrence(
        calendar=calendar_name,
        uid=str(event.get("UID", "")),
        title=str(event.get("SUMMARY", "")),
        start=start,
        end=end,
        all_day=all_day,
        location=str(event.get("LOCATION", "")),
        description=str(event.get("DESCRIPTION", "")),
        attendees=tuple(_address(value) for value in _many(event.get("ATTENDEE"))),
        organizer=_address(event["ORGANIZER"]) if "ORGANIZER" in event else "",
        recurring=recurring,
        recurrence_id=iso(original) if recurring else None,
        busy=str(event.get("TRANSP", "")).upper() != "TRANSPARENT"
        and str(event.get("STATUS", "")).upper() != "CANCELLED",
        categories=tuple(
            str(name)
            for value in _many(event.get("CATEGORIES"))
            for name in getattr(value, "cats", ())
        ),
    )


def _many(value: object) -> list[object]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _address(value: object) -> str:
    text = str(value).strip()
    return (text[7:] if text.lower().startswith("mailto:") else text).lower()


def _in_zone(value: datetime, zone: ZoneInfo) -> datetime:
    """Floating times are read in `zone`; aware ones are converted to it."""
    return value.replace(tzinfo=zone) if value.tzinfo is None else value.astimezone(zone)


def _moment(value: datetime | date, zone: ZoneInfo) -> datetime:
    if isinstance(value, datetime):
        return _in_zone(value, zone)
    return datetime(value.year, value.month, value.day, tzinfo=zone)


def _label(events: list[icalendar.Component]) -> str:
    for event in events:
        if "SUMMARY" in event:
            return f"VEVENT '{event['SUMMARY']}'"
    return f"VEVENT '{events[0].get('UID')}'" if events else "event"
