"""An event, or one occurrence of it, as a preview card shows it, with its repeat rule in words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

import icalendar

from hearth import counted
from hearth.connectors.calendar import series

_UNITS = {"DAILY": "day", "WEEKLY": "week", "MONTHLY": "month", "YEARLY": "year"}
_DAYS = {"MO": "Monday", "TU": "Tuesday", "WE": "Wednesday", "TH": "Thursday", "FR": "Friday"}
_DAYS |= {"SA": "Saturday", "SU": "Sunday"}
_ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last"}


@dataclass(frozen=True)
class EventView:
    """An event, or one occurrence of it, as a preview card shows it; times in the user's zone."""

    title: str
    start: datetime | date
    end: datetime | date
    all_day: bool
    location: str
    description: str
    attendees: tuple[str, ...]
    organizer: str
    recurring: bool
    rule: str
    occurrence: str | None


def view(ics: str, zone: ZoneInfo, occurrence: str | None = None) -> EventView:
    """The event, or one occurrence of it (its override, else the master moved there)."""
    calendar = series.parse(ics)
    master = series.master(calendar)
    event = master
    start, end = series.span(master)
    if occurrence is not None:
        original, _tzid, override = series.instance(calendar, master, occurrence)
        if override is not None:
            event = override
            start, end = series.span(override)
        else:
            start, end = original, series.shifted(original, series.elapsed(start, end))
    return EventView(
        title=str(event.get("SUMMARY", "")),
        start=series.timed_in(start, zone),
        end=series.timed_in(end, zone),
        all_day=not isinstance(start, datetime),
        location=str(event.get("LOCATION", "")),
        description=str(event.get("DESCRIPTION", "")),
        attendees=tuple(series.bare(prop) for prop in series.attendee_props(event)),
        organizer=series.bare(event["ORGANIZER"]) if "ORGANIZER" in event else "",
        recurring=series.recurring(master),
        rule=_rule_text(master),
        occurrence=occurrence,
    )


def _rule_text(master: icalendar.Component) -> str:
    """The repeat rule in a few words, e.g. "every 2 weeks on Monday and Friday, 10 times"."""
    rule = master.get("RRULE")
    if rule is None:
        return "on selected dates" if "RDATE" in master else ""
    frequency = str(rule.get("FREQ", ["?"])[0])
    unit = _UNITS.get(frequency, frequency.lower())
    interval = int(rule.get("INTERVAL", [1])[0])
    text = f"every {unit}" if interval == 1 else f"every {interval} {unit}s"
    days = [_day_name(str(day)) for day in rule.get("BYDAY", [])]
    month_days = [str(day) for day in rule.get("BYMONTHDAY", [])]
    if days:
        text += f" on {_joined(days)}"
    elif month_days:
        text += f" on day {_joined(month_days)}"
    if "COUNT" in rule:
        text += f", {counted(int(rule['COUNT'][0]), 'time')}"
    if "UNTIL" in rule:
        until = rule["UNTIL"][0]
        text += f", until {(until.date() if isinstance(until, datetime) else until).isoformat()}"
    return text


def _day_name(day: str) -> str:
    found = re.fullmatch(r"([+-]?\d*)([A-Z]{2})", day.upper())
    if found is None:
        return day
    name = _DAYS.get(found.group(2), found.group(2))
    if not found.group(1):
        return name
    number = int(found.group(1))
    return f"the {_ORDINALS.get(number, f'{number}.')} {name}"


def _joined(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
