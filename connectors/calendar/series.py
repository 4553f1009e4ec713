"""Reading one event's object: its master, its overrides, one instance of it, and its times.

An object holds the master VEVENT and its RECURRENCE-ID overrides. An occurrence is named by
its original start as expansion lists it. Time arithmetic is done in real (UTC) time where a
zone is known, so an hour-long event stays an hour long across a DST change.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

import icalendar
import recurring_ical_events

from hearth.connectors.calendar.errors import BadCalendarData, CalendarError, EventNotFound


def parse(ics: str) -> icalendar.Calendar:
    """The VCALENDAR in `ics`; text that is not one is `BadCalendarData`."""
    try:
        calendar = icalendar.Calendar.from_ical(ics)
    except ValueError as error:
        raise BadCalendarData(f"the event's calendar text cannot be read: {error}") from None
    if not isinstance(calendar, icalendar.Calendar):
        raise BadCalendarData("the event's text is not a VCALENDAR")
    return calendar


def master(calendar: icalendar.Calendar) -> icalendar.Component:
    """The one VEVENT without RECURRENCE-ID: the event itself, or its series."""
    masters = [event for event in calendar.walk("VEVENT") if "RECURRENCE-ID" not in event]
    if len(masters) != 1 or "DTSTART" not in masters[0]:
        raise BadCalendarData(f"expected one main event with a start, found {len(masters)}")
    return masters[0]


def overrides(calendar: icalendar.Calendar) -> list[icalendar.Component]:
    """The VEVENTs that change one occurrence of the series."""
    return [event for event in calendar.walk("VEVENT") if "RECURRENCE-ID" in event]


def recurring(master: icalendar.Component) -> bool:
    """Whether the event repeats (by rule or by listed dates)."""
    return "RRULE" in master or "RDATE" in master


def instance(
    calendar: icalendar.Calendar, master: icalendar.Component, occurrence: str
) -> tuple[date, str | None, icalendar.Component | None]:
    """The occurrence's original start, its TZID, and its override if it has one."""
    wanted = occurrence_value(occurrence)
    for override in overrides(calendar):
        if same_start(when(override, "RECURRENCE-ID"), wanted):
            return (
                when(override, "RECURRENCE-ID"),
                override["RECURRENCE-ID"].params.get("TZID"),
                override,
            )
    title = str(master.get("SUMMARY", ""))
    if not recurring(master):
        raise EventNotFound(f"'{title}' does not repeat; change or delete the whole event")
    alone = icalendar.Calendar()
    for timezone in calendar.walk("VTIMEZONE"):
        alone.add_component(timezone)
    alone.add_component(master)
    day = wanted.date() if isinstance(wanted, datetime) else wanted
    window = recurring_ical_events.of(alone).between(
        day - timedelta(days=2), day + timedelta(days=3)
    )
    for found in window:
        if same_start(when(found, "DTSTART"), wanted):
            tzid = master["DTSTART"].params.get("TZID") if isinstance(wanted, datetime) else None
            return when(found, "DTSTART"), tzid, None
    raise EventNotFound(f"'{title}' has no occurrence starting {occurrence}")


def occurrence_value(text: str) -> date:
    """An occurrence start as listed: a date-time, or a date for an all-day event."""
    try:
        if "T" in text or " " in text.strip():
            return datetime.fromisoformat(text.strip())
        return date.fromisoformat(text.strip())
    except ValueError:
        raise CalendarError(
            f"{text!r} is not an occurrence start; give it as listed, "
            "e.g. 2026-03-02T09:00:00+01:00 or 2026-03-02"
        ) from None


def same_start(found: date, wanted: date) -> bool:
    """Whether two starts are the same moment (or the same day, for all-day events)."""
    if isinstance(found, datetime) != isinstance(wanted, datetime):
        return False
    if not isinstance(found, datetime) or not isinstance(wanted, datetime):
        return found == wanted
    if found.tzinfo is None or wanted.tzinfo is None:  # floating: wall clocks must agree
        return found.replace(tzinfo=None) == wanted.replace(tzinfo=None)
    return found.astimezone(UTC) == wanted.astimezone(UTC)


def when(event: icalendar.Component, name: str) -> date:
    """The date or date-time in property `name`; anything else is `BadCalendarData`."""
    value = event.decoded(name)
    if not isinstance(value, date):
        raise BadCalendarData(f"the event's {name} is not a date or a date-time")
    return value


def span(event: icalendar.Component) -> tuple[date, date]:
    """Start and exclusive end, from DTEND, DURATION, or the RFC 5545 default.

    Read as expansion reads them (recurring_ical_events): DTEND wins over a DURATION beside it,
    and a date beside a time, or a date lasting hours, becomes a time from midnight.
    """
    start = when(event, "DTSTART")
    duration = event.decoded("DURATION") if "DURATION" in event else None
    if "DTEND" in event:
        end = when(event, "DTEND")
    elif isinstance(duration, timedelta):
        if not isinstance(start, datetime) and duration.seconds:
            start = datetime.combine(start, datetime.min.time())
        end = shifted(start, duration)
    else:
        end = shifted(start, timedelta(days=0 if isinstance(start, datetime) else 1))
    if isinstance(start, datetime) == isinstance(end, datetime):
        return start, end
    zone = next(v.tzinfo for v in (start, end) if isinstance(v, datetime))
    return _midnight(start, zone), _midnight(end, zone)


def _midnight(value: date, zone: tzinfo | None) -> datetime:
    """A date as the time its day begins in `zone` (floating without one); a time unchanged."""
    if isinstance(value, datetime):
        return value
    return datetime.combine(value, datetime.min.time()).replace(tzinfo=zone)


def elapsed(start: date, end: date) -> timedelta:
    """Real time from `start` to `end`."""
    return instant(end) - instant(start)


def shifted(start: date, by: timedelta) -> date:
    """`start` plus `by` of real time: across a DST change the wall clock moves by more or less."""
    if isinstance(start, datetime) and start.tzinfo is not None:
        return (start.astimezone(UTC) + by).astimezone(start.tzinfo)
    return start + by


def instant(value: date) -> date:
    """`value` in UTC when it has a zone, so moments in different zones compare right."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC)
    return value


def check_span(start: date, end: date) -> None:
    """Refuse an event that mixes dates and date-times, or ends before it starts."""
    if isinstance(start, datetime) != isinstance(end, datetime):
        raise CalendarError("start and end must both be dates (all-day) or both date-times")
    if not instant(end) > instant(start):
        raise CalendarError(
            f"the end ({end.isoformat()}) must be after the start ({start.isoformat()})"
        )


def timed_in(value: date, zone: ZoneInfo) -> date:
    """A date-time in `zone` (naive read as wall time there); a date unchanged."""
    return aware(value, zone) if isinstance(value, datetime) else value


def aware(value: datetime, zone: ZoneInfo) -> datetime:
    """A naive time read as wall time in `zone`; an aware one converted to it."""
    return value.replace(tzinfo=zone) if value.tzinfo is None else value.astimezone(zone)


def placed(value: object, current: date, zone: ZoneInfo) -> date:
    """`value` in the time zone of the event's current start, so its TZID stays right."""
    if not isinstance(value, date):
        raise CalendarError("start and end must be dates (all-day) or date-times")
    if not isinstance(value, datetime):
        return value
    in_zone = aware(value, zone)
    if not isinstance(current, datetime):
        return in_zone
    if current.tzinfo is None:  # floating, or a TZID nobody knows: keep the wall time
        return in_zone.astimezone(zone).replace(tzinfo=None)
    return in_zone.astimezone(current.tzinfo)


def attendee_props(event: icalendar.Component) -> list[icalendar.vCalAddress]:
    """The event's ATTENDEE properties, with their parameters (PARTSTAT, RSVP)."""
    found = event.get("ATTENDEE", [])
    return list(found) if isinstance(found, list) else [found]


def bare(prop: object) -> str:
    """An address as compared: lowercase, without mailto:."""
    text = str(prop).strip()
    return (text[len("mailto:") :] if text.lower().startswith("mailto:") else text).lower()
