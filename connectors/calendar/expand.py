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
from dataclasses import dataclass
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
    start, end = in_zone(start, zone), in_zone(end, zone)
    found: list[Occurrence] = []
    problems: list[Problem] = []
    for calendar_name, text in objects:
        if time.monotonic() > deadline:
            problems.append(too_slow(calendar_name, time_limit_s))
            break
        found.extend(expand_object(calendar_name, text, start, end, zone, limit, problems))
    return in_order(found, problems, zone, limit)


def in_order(
    found: list[Occurrence], problems: list[Problem], zone: ZoneInfo, limit: int
) -> tuple[list[Occurrence], list[Problem]]:
    """The occurrences sorted by start (stably: equal starts keep the order they came in),
    cut to `limit` with a problem saying so."""
    found.sort(key=lambda occurrence: (moment(occurrence.start, zone), occurrence.uid))
    return first_of(found, problems, limit)


def first_of(
    found: list[Occurrence], problems: list[Problem], limit: int
) -> tuple[list[Occurrence], list[Problem]]:
    """At most `limit` occurrences of sorted `found`, with a problem when some were left out."""
    if len(found) > limit:
        message = f"only the first {limit} occurrences are listed; ask for a shorter range"
        problems.append(Problem(found[limit].calendar, None, "calendar", message))
        found = found[:limit]
    return found, problems


def too_slow(calendar_name: str, time_limit_s: float) -> Problem:
    message = f"not all events were listed: listing took over {time_limit_s:g} s"
    return Problem(calendar_name, None, "calendar", message)


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


def expand_object(
    calendar_name: str,
    text: str,
    start: datetime,
    end: datetime,
    zone: ZoneInfo,
    limit: int,
    problems: list[Problem],
) -> list[Occurrence]:
    """One object's occurrences in [start, end) (aware, in `zone`), in the order expansion
    gives them; what cannot be listed is added to `problems`."""
    try:
        calendar = icalendar.Calendar.from_ical(text)
        events = calendar.walk("VEVENT")
    except ValueError as error:
        problems.append(Problem(calendar_name, None, "event", f"not read: {error}"))
        return []
    label = _label(events)
    stop = safe_stop(events, start, end, zone, limit)
    if stop < end:
        shown = "nothing was listed" if stop <= start else f"it is listed only until {iso(stop)}"
        problems.append(Problem(calendar_name, None, label, f"repeats too often; {shown}"))
        if stop <= start:
            return []
    recurring = is_recurring(events)
    try:
        query = recurring_ical_events.of(calendar, keep_recurrence_attributes=True)
        instances = query.between(start, stop)
        return [_occurrence(calendar_name, item, zone, recurring) for item in instances]
    except (ValueError, TypeError, OverflowError, icalendar.InvalidCalendar) as error:
        problems.append(Problem(calendar_name, None, label, f"could not be expanded: {error}"))
        return []


def is_recurring(events: list[icalendar.Component]) -> bool:
    """Whether the object's occurrences are listed as a series (with their original starts)."""
    return any(key in event for event in events for key in ("RRULE", "RDATE", "RECURRENCE-ID"))


def safe_stop(
    events: list[icalendar.Component], start: datetime, end: datetime, zone: ZoneInfo, limit: int
) -> datetime:
    """How far the range can be expanded before a dense rule costs too many steps."""
    stop = end
    for event in events:
        rules = event.get("RRULE")
        for rule in rules if isinstance(rules, list) else [rules] if rules else []:
            spacing = rule_spacing(rule)
            count = rule.get("COUNT", [None])[0]
            if spacing is None or (count is not None and int(count) <= min(limit, MAX_RULE_STEPS)):
                continue
            first = moment(event.decoded("DTSTART"), zone)
            try:
                stop = min(stop, first + spacing * MAX_RULE_STEPS)
                stop = min(stop, max(first, start) + spacing * limit)
            except OverflowError:
                continue
    return stop


def rule_spacing(rule: icalendar.vRecur) -> timedelta | None:
    """The shortest average gap between instances the rule can produce."""
    freq = str(rule.get("FREQ", [""])[0]).upper()
    if freq not in _SPACING:
        return None
    interval = max(int(rule.get("INTERVAL", [1])[0]), 1)
    per_period = math.prod(len(rule.get(key, [None])) for key in _EXPANDING)
    return _SPACING[freq] * interval / per_period


@dataclass(frozen=True)
class EventFields:
    """What an occurrence shows of the component it comes from (its master or its override)."""

    uid: str
    title: str
    location: str
    description: str
    attendees: tuple[str, ...]
    organizer: str
    busy: bool
    categories: tuple[str, ...]


def fields_of(event: icalendar.Component) -> EventFields:
    """The fields an occurrence of `event` shows; its times are the occurrence's own."""
    return EventFields(
        uid=str(event.get("UID", "")),
        title=str(event.get("SUMMARY", "")),
        location=str(event.get("LOCATION", "")),
        description=str(event.get("DESCRIPTION", "")),
        attendees=tuple(_address(value) for value in _many(event.get("ATTENDEE"))),
        organizer=_address(event["ORGANIZER"]) if "ORGANIZER" in event else "",
        busy=str(event.get("TRANSP", "")).upper() != "TRANSPARENT"
        and str(event.get("STATUS", "")).upper() != "CANCELLED",
        categories=tuple(
            str(name)
            for value in _many(event.get("CATEGORIES"))
            for name in getattr(value, "cats", ())
        ),
    )


def occurrence_of(
    calendar_name: str,
    fields: EventFields,
    times: tuple[date, date, date],
    zone: ZoneInfo,
    recurring: bool,
) -> Occurrence:
    """One occurrence from its fields and its (start, end, original start) as expansion gave
    them; every way of listing builds occurrences here, so they agree to the last field."""
    start, end, original = times
    all_day = not isinstance(start, datetime)
    if not all_day:
        start, end = in_zone(start, zone), in_zone(end, zone)  # type: ignore[arg-type]
    if isinstance(original, datetime):
        original = in_zone(original, zone)
    return Occurrence(
        calendar_name,
        fields.uid,
        fields.title,
        start,
        end,
        all_day,
        fields.location,
        fields.description,
        fields.attendees,
        fields.organizer,
        recurring,
        iso(original) if recurring else None,
        fields.busy,
        fields.categories,
    )


def _occurrence(
    calendar_name: str, event: icalendar.Component, zone: ZoneInfo, recurring: bool
) -> Occurrence:
    start = event.decoded("DTSTART")
    end = event.decoded("DTEND") if "DTEND" in event else start
    original = event.decoded("RECURRENCE-ID") if "RECURRENCE-ID" in event else start
    return occurrence_of(calendar_name, fields_of(event), (start, end, original), zone, recurring)


def _many(value: object) -> list[object]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _address(value: object) -> str:
    text = str(value).strip()
    return (text[7:] if text.lower().startswith("mailto:") else text).lower()


def in_zone(value: datetime, zone: ZoneInfo) -> datetime:
    """Floating times are read in `zone`; aware ones are converted to it."""
    return value.replace(tzinfo=zone) if value.tzinfo is None else value.astimezone(zone)


def moment(value: datetime | date, zone: ZoneInfo) -> datetime:
    if isinstance(value, datetime):
        return in_zone(value, zone)
    return datetime(value.year, value.month, value.day, tzinfo=zone)


def _label(events: list[icalendar.Component]) -> str:
    for event in events:
        if "SUMMARY" in event:
            return f"VEVENT '{event['SUMMARY']}'"
    return f"VEVENT '{events[0].get('UID')}'" if events else "event"
