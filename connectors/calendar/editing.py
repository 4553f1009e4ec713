"""Making and changing one event's object: the VCALENDAR text that holds a UID's whole story.

An object holds the master VEVENT, its RECURRENCE-ID overrides and the VTIMEZONEs they use.
Changes to one occurrence go into an override and never touch the master; changes to a whole
series go into the master. Every change bumps SEQUENCE and stamps DTSTAMP and LAST-MODIFIED, so
other clients and invitees see a newer version. Times keep the time zone the event already
uses, so a series keeps its wall-clock rhythm; new events are written in the user's zone.
"""

from __future__ import annotations

import copy
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import icalendar

from hearth.connectors.calendar import series
from hearth.connectors.calendar.errors import CalendarError

PRODID = "-//Hearth//Calendar//EN"
_ADDRESS = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(\.[\w-]+)+")
_TEXT = {"title": "SUMMARY", "location": "LOCATION", "description": "DESCRIPTION"}
_FIELDS = frozenset({*_TEXT, "start", "end", "attendees"})
_SERIES_ONLY = frozenset({"RRULE", "RDATE", "EXDATE", "EXRULE", "DTSTART", "DTEND", "DURATION"})


@dataclass(frozen=True)
class EventFields:
    """A new event as asked for. All-day when `start` is a date; `end` is then exclusive."""

    title: str
    start: datetime | date
    end: datetime | date
    location: str = ""
    description: str = ""
    attendees: tuple[str, ...] = ()


def event_uid() -> str:
    """A fresh, globally unique event UID."""
    return f"{uuid.uuid4()}@hearth"


def new_object(
    uid: str,
    fields: EventFields,
    zone: ZoneInfo,
    *,
    organizer: str | None = None,
    now: datetime,
) -> str:
    """The VCALENDAR text of a new event; naive times are read in `zone`.

    ORGANIZER is written only for an event with attendees, and only when `organizer` is given.
    """
    attendees = _addresses(fields.attendees)
    organizer_address = None if organizer is None else _address(organizer)
    event = icalendar.Event()
    event.add("uid", uid)
    event.add("created", _utc(now))
    _apply(event, {"title": fields.title, "location": fields.location}, zone)
    _apply(event, {"description": fields.description}, zone)
    start, end = series.timed_in(fields.start, zone), series.timed_in(fields.end, zone)
    series.check_span(start, end)
    _put_time(event, "DTSTART", start, None)
    _put_time(event, "DTEND", end, None)
    if attendees and organizer_address is not None:
        event.add("organizer", f"mailto:{organizer_address}")
    _set_attendees(event, attendees)
    _stamp(event, now, new=True)
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add_component(event)
    calendar.add_missing_timezones()
    return _serialized(calendar)


def change_object(
    ics: str,
    changes: Mapping[str, object],
    zone: ZoneInfo,
    *,
    occurrence: str | None,
    now: datetime,
) -> str:
    """`ics` with `changes` made to the whole series (occurrence None) or to one occurrence.

    `occurrence` is the instance's original start as expansion lists it. A series whose start
    moves must have no changed or removed occurrences: those are pinned to the old times.
    """
    unknown = sorted(set(changes) - _FIELDS)
    if unknown:
        raise CalendarError(
            f"cannot change {', '.join(unknown)}; only {', '.join(sorted(_FIELDS))}"
        )
    calendar = series.parse(ics)
    master = series.master(calendar)
    if occurrence is None:
        _change_series(calendar, master, changes, zone, now)
    else:
        original, tzid, override = series.instance(calendar, master, occurrence)
        if override is None:
            override = _new_override(master, original, tzid)
            calendar.add_component(override)
        _apply(override, changes, zone)
        _stamp(override, now)
    calendar.add_missing_timezones()
    return _serialized(calendar)


def remove_occurrence(ics: str, occurrence: str, *, now: datetime) -> str:
    """`ics` with one occurrence excluded from its series (EXDATE) and its override dropped."""
    calendar = series.parse(ics)
    master = series.master(calendar)
    original, tzid, override = series.instance(calendar, master, occurrence)
    if override is not None:
        calendar.subcomponents.remove(override)
    master.add("exdate", original)
    excluded = master["EXDATE"]
    added = excluded[-1] if isinstance(excluded, list) else excluded
    if tzid is not None:
        added.params["TZID"] = tzid
    _stamp(master, now)
    return _serialized(calendar)


def attendees_of(ics: str) -> list[str]:
    """Every attendee address in every VEVENT of the object: lowercase, no mailto:, unique."""
    found: dict[str, None] = {}
    for event in series.parse(ics).walk("VEVENT"):
        found.update((series.bare(prop), None) for prop in series.attendee_props(event))
    return list(found)


def _change_series(
    calendar: icalendar.Calendar,
    master: icalendar.Component,
    changes: Mapping[str, object],
    zone: ZoneInfo,
    now: datetime,
) -> None:
    before = series.when(master, "DTSTART")
    overrides = series.overrides(calendar)
    old = {key: _current(master, key) for key in changes if key in _TEXT or key == "attendees"}
    _apply(master, changes, zone)
    after = series.when(master, "DTSTART")
    if series.recurring(master) and isinstance(before, datetime) != isinstance(after, datetime):
        raise CalendarError(
            "a repeating event cannot switch between all-day and timed; "
            "remove it and create it again instead"
        )
    moved = series.instant(before) != series.instant(after)
    if series.recurring(master) and moved and (overrides or "EXDATE" in master):
        raise CalendarError(
            "this repeating event has occurrences that were changed or removed on their own, "
            "so its start cannot move as a whole; change its occurrences one by one"
        )
    _stamp(master, now)
    # An override still showing the series' old title, place or guests follows the series.
    for override in overrides:
        followed = {key: changes[key] for key in old if _current(override, key) == old[key]}
        if followed:
            _apply(override, followed, zone)
            _stamp(override, now)


def _apply(event: icalendar.Component, changes: Mapping[str, object], zone: ZoneInfo) -> None:
    for key, name in _TEXT.items():
        if key in changes:
            text = changes[key]
            if not isinstance(text, str):
                raise CalendarError(f"the {key} must be text")
            text = text.strip() if key == "title" else text
            if key == "title" and not text:
                raise CalendarError("an event needs a title")
            event.pop(name, None)
            if text:
                event.add(name, text)
    if "attendees" in changes:
        given = changes["attendees"]
        if isinstance(given, str) or not isinstance(given, Sequence):
            raise CalendarError("attendees must be a list of email addresses")
        _set_attendees(event, _addresses(given))
    if "start" in changes or "end" in changes:
        _move(event, changes.get("start"), changes.get("end"), zone)


def _move(event: icalendar.Component, start: object, end: object, zone: ZoneInfo) -> None:
    old_start, old_end = series.span(event)
    tzid = event["DTSTART"].params.get("TZID")
    new_start = series.placed(old_start if start is None else start, old_start, zone)
    if end is not None:
        new_end = series.placed(end, old_start, zone)
    elif isinstance(new_start, datetime) == isinstance(old_start, datetime):
        new_end = series.shifted(new_start, series.elapsed(old_start, old_end))
    else:
        new_end = series.shifted(
            new_start, timedelta(hours=1 if isinstance(new_start, datetime) else 24)
        )
    series.check_span(new_start, new_end)
    event.pop("DURATION", None)
    _put_time(event, "DTSTART", new_start, tzid)
    _put_time(event, "DTEND", new_end, tzid)


def _new_override(
    master: icalendar.Component, original: date, tzid: str | None
) -> icalendar.Component:
    override = icalendar.Event()
    for name, value in master.items():
        if name not in _SERIES_ONLY:
            override[name] = copy.deepcopy(value)
    for component in master.subcomponents:
        override.add_component(copy.deepcopy(component))
    start, end = series.span(master)
    _put_time(override, "RECURRENCE-ID", original, tzid)
    _put_time(override, "DTSTART", original, tzid)
    _put_time(override, "DTEND", series.shifted(original, series.elapsed(start, end)), tzid)
    return override


def _serialized(calendar: icalendar.Calendar) -> str:
    text: str = calendar.to_ical().decode()
    return text


def _current(event: icalendar.Component, key: str) -> object:
    if key == "attendees":
        return sorted(series.bare(prop) for prop in series.attendee_props(event))
    return str(event.get(_TEXT[key], ""))


def _put_time(event: icalendar.Component, name: str, value: date, tzid: str | None) -> None:
    event.pop(name, None)
    event.add(name, value)
    if tzid is not None and isinstance(value, datetime):
        event[name].params["TZID"] = tzid


def _stamp(event: icalendar.Component, now: datetime, *, new: bool = False) -> None:
    """Mark a change: a higher SEQUENCE (absent counts as 0) and fresh time stamps."""
    sequence = 0 if new else int(event.get("SEQUENCE", 0)) + 1
    for name, value in (
        ("SEQUENCE", sequence),
        ("DTSTAMP", _utc(now)),
        ("LAST-MODIFIED", _utc(now)),
    ):
        event.pop(name, None)
        event.add(name, value)


def _utc(now: datetime) -> datetime:
    if now.tzinfo is None:
        raise ValueError("`now` must be an aware datetime")
    return now.astimezone(UTC).replace(microsecond=0)


def _set_attendees(event: icalendar.Component, addresses: list[str]) -> None:
    """Keep the answers (PARTSTAT) of those still invited; invite the new ones."""
    kept = {series.bare(prop): prop for prop in series.attendee_props(event)}
    event.pop("ATTENDEE", None)
    for address in addresses:
        prop = kept.get(address.lower())
        if prop is None:
            prop = icalendar.vCalAddress(f"mailto:{address}")
            prop.params.update({"PARTSTAT": "NEEDS-ACTION", "RSVP": "TRUE"})
        event.add("attendee", prop)


def _addresses(given: Sequence[object]) -> list[str]:
    unique: dict[str, str] = {}
    for item in given:
        if not isinstance(item, str):
            raise CalendarError("attendees must be a list of email addresses")
        address = _address(item)
        unique.setdefault(address.lower(), address)
    return list(unique.values())


def _address(text: str) -> str:
    address = text.strip()
    if address.lower().startswith("mailto:"):
        address = address[len("mailto:") :]
    if not _ADDRESS.fullmatch(address):
        raise CalendarError(f"{text!r} is not an email address like name@example.org")
    return address
