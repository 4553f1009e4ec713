"""Read ICS text one component at a time, so one broken event never hides the rest.

The line scanner in `scan` unfolds the text and cuts it into top-level components with the line
each starts on; each is then parsed by icalendar on its own. What cannot be read is dropped and
reported as a `Problem` naming the file, the line and the component. Event times are read as
leniently as `recurring_ical_events` expands them, as real calendar programs write them: DTEND
wins over a DURATION beside it (Thunderbird's moved occurrences), and a date paired with a
date-time is read as a time from midnight.
"""

from __future__ import annotations

import hashlib
import re
import time
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import icalendar
import x_wr_timezone
from icalendar.timezone import tzp

from hearth.connectors.calendar.errors import BadCalendarData
from hearth.connectors.calendar.objects import Problem
from hearth.connectors.calendar.scan import Block, Line, blocks, split_line

MAX_ICS_BYTES = 32 * 1024 * 1024
MAX_COMPONENT_LINES = 5000  # bounds the time one component can take to parse
PRODID = "-//Hearth//Calendar//EN"
_DATE_PROPERTIES = {"DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE"}
_VITAL = _DATE_PROPERTIES | {"DURATION", "RRULE", "UID"}
_VOLATILE = {"DTSTAMP", "LAST-MODIFIED"}  # ignored when deriving a missing UID


@dataclass
class ParsedCalendar:
    """The readable part of an ICS text, and what could not be read."""

    calendar: icalendar.Calendar
    problems: list[Problem] = field(default_factory=list)
    name: str | None = None
    default_zone: str | None = None
    cut: str | None = None  # why the text is not whole (no END:VCALENDAR); None when it is


def read_calendar(data: bytes | str, *, where: str, time_limit_s: float = 5.0) -> ParsedCalendar:
    """Read ICS text; bad components are dropped and reported, never raised.

    Raises BadCalendarData only when the text is over MAX_ICS_BYTES or holds no calendar at all.
    """
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "replace"))
    if size > MAX_ICS_BYTES:
        raise BadCalendarData(
            f"{where} is {size} bytes; Hearth reads calendars up to {MAX_ICS_BYTES} bytes"
        )
    text = data.decode("utf-8-sig", "replace") if isinstance(data, bytes) else data
    problems: list[Problem] = []
    found = blocks(text, where, problems)
    if found is None:
        raise BadCalendarData(f"{where} is not an iCalendar file (no BEGIN:VCALENDAR)")
    if found.cut is not None:
        problems.append(Problem(where, None, "VCALENDAR", f"cut short: {found.cut}"))
    header, parts = found.header, found.blocks
    calendar = _header(header, where, problems)
    name = _text(calendar.get("X-WR-CALNAME"))
    zone = _default_zone(calendar, where, problems)
    reader = _ComponentReader(where, problems, zone, time.monotonic() + time_limit_s)
    zones = [part for part in parts if part.kind == "VTIMEZONE"]
    for part in zones + [part for part in parts if part.kind != "VTIMEZONE"]:
        component = reader.read(part)
        if component is not None:
            calendar.add_component(component)
    if zone is not None and "X-WR-TIMEZONE" in calendar:
        calendar = x_wr_timezone.to_standard(calendar)
    problems.sort(key=lambda problem: problem.line or 0)
    return ParsedCalendar(calendar, problems, name, zone, found.cut)


def split_objects(calendar: icalendar.Calendar) -> dict[str, str]:
    """Cut a calendar into one standalone VCALENDAR text per UID, with the VTIMEZONEs it uses."""
    zones = {str(tz.get("TZID")): tz for tz in calendar.walk("VTIMEZONE")}
    grouped: dict[str, list[icalendar.Component]] = {}
    for component in calendar.subcomponents:
        if component.name != "VTIMEZONE" and "UID" in component:
            grouped.setdefault(str(component["UID"]), []).append(component)
    objects: dict[str, str] = {}
    for uid, members in grouped.items():
        single = _new_calendar(calendar.get("PRODID"))
        used = sorted({tzid for member in members for tzid in _tzids(member)})
        for tzid in used:
            if tzid in zones:
                single.add_component(zones[tzid])
        for member in members:
            single.add_component(member)
        objects[uid] = single.to_ical().decode("utf-8")
    return objects


def join_objects(objects: Iterable[str], *, name: str | None) -> str:
    """Put several object texts into one VCALENDAR, each VTIMEZONE once."""
    joined = _new_calendar(None)
    if name is not None:
        joined.add("X-WR-CALNAME", name)
    zones: set[str] = set()
    for text in objects:
        try:
            single = icalendar.Calendar.from_ical(text)
        except ValueError as error:
            raise BadCalendarData(f"an event could not be read back: {error}") from error
        for component in single.subcomponents:
            if component.name == "VTIMEZONE":
                tzid = str(component.get("TZID"))
                if tzid in zones:
                    continue
                zones.add(tzid)
            joined.add_component(component)
    timezones = [c for c in joined.subcomponents if c.name == "VTIMEZONE"]
    others = [c for c in joined.subcomponents if c.name != "VTIMEZONE"]
    joined.subcomponents = timezones + others
    return str(joined.to_ical().decode("utf-8"))


def object_hash(ics: str) -> str:
    """A sha256 hex digest of the text with folding, line endings and blank lines evened out."""
    unfolded = re.sub(r"\r?\n[ \t]", "", ics.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [line.rstrip() for line in unfolded.split("\n") if line.strip()]
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def known_zone(tzid: str) -> bool:
    """Whether icalendar can find a zone by this TZID (Olson, Windows or vendor-prefixed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return tzp.timezone(tzid) is not None
        except (ValueError, OSError):
            return False


class _ComponentReader:
    """Parses blocks one at a time within a shared deadline, reporting what it drops."""

    def __init__(self, where: str, problems: list[Problem], zone: str | None, deadline: float):
        self.where, self.problems, self.zone, self.deadline = where, problems, zone, deadline
        self.zones: set[str] = set()
        self.late = False

    def report(self, block: Block, message: str) -> None:
        self.problems.append(Problem(self.where, block.line, block.label(), message))

    def read(self, block: Block) -> icalendar.Component | None:
        if self.late or time.monotonic() > self.deadline:
            self.late = True
            self.report(block, "not read: reading this calendar took too long")
            return None
        if len(block.lines) > MAX_COMPONENT_LINES:
            self.report(block, f"not read: over {MAX_COMPONENT_LINES} lines")
            return None
        lines = [kept for line in block.lines if (kept := self._fit(block, line)) is not None]
        if block.kind == "VTIMEZONE":
            component = self._parse(block, lines)
            if component is not None and "TZID" in component:
                self.zones.add(str(component["TZID"]))
            return component
        return self._check(block, self._parse(block, [self._fix_zone(block, x) for x in lines]))

    def _fit(self, block: Block, line: Line) -> str | None:
        if not line.cut:
            return line.text
        name = line.name()
        if name in _VITAL or name in {"ATTACH", "RRULE"}:
            self.report(block, f"{name} is too long to read ({line.length} characters); left out")
            return None
        self.report(block, f"{name} cut from {line.length} characters")
        return line.text.rstrip("\\")

    def _fix_zone(self, block: Block, text: str) -> str:
        head, value = split_line(text)
        params = head.split(";")
        tzids = [p for p in params if p.upper().startswith("TZID=")]
        if params[0].upper() not in _DATE_PROPERTIES or not tzids:
            return text
        tzid = tzids[0][5:].strip('"')
        if tzid in self.zones or known_zone(tzid):
            return text
        kept = [p for p in params if p not in tzids]
        if self.zone is not None:
            self.report(block, f"unknown time zone '{tzid}' in {params[0]}; read as {self.zone}")
            return ";".join([*kept, f"TZID={self.zone}"]) + ":" + value
        self.report(block, f"unknown time zone '{tzid}' in {params[0]}; read as UTC")
        utc = ",".join(v if v.endswith("Z") or "T" not in v else v + "Z" for v in value.split(","))
        return ";".join(kept) + ":" + utc

    def _parse(self, block: Block, lines: list[str]) -> icalendar.Component | None:
        try:
            component = icalendar.Component.from_ical("\r\n".join(lines) + "\r\n")
        except (ValueError, KeyError, IndexError, TypeError) as error:
            self.report(block, f"not read: {error}")
            return None
        fatal = [f"{n}: {m}" for n, m in component.errors if n is not None and n.upper() in _VITAL]
        if fatal:
            self.report(block, "not read: " + "; ".join(fatal))
            return None
        for prop, message in component.errors:
            self.report(block, f"{prop or 'a line'} left out: {message}")
            if prop is not None:
                component.pop(prop, None)
        return component

    def _check(self, block: Block, event: icalendar.Component | None) -> icalendar.Component | None:
        if event is None or event.name not in {"VEVENT", "VTODO", "VJOURNAL"}:
            return event
        if event.name == "VEVENT":
            if "DTSTART" not in event:
                self.report(block, "not read: it has no DTSTART")
                return None
            fault = _times_fault(event)
            if fault is not None:
                self.report(block, f"not read: {fault}")
                return None
        if "UID" not in event:
            stable = "\n".join(x.text for x in block.lines if x.name() not in _VOLATILE)
            uid = "hearth-" + hashlib.sha256(stable.encode("utf-8")).hexdigest()[:24]
            event.add("UID", uid)
            self.report(block, f"it has no UID; given {uid}")
        return event


def _times_fault(event: icalendar.Component) -> str | None:
    """Why the event's start and end cannot be read, or None; lenient as expansion is."""
    try:
        values = {
            name: event.decoded(name) for name in ("DTSTART", "DTEND", "DURATION") if name in event
        }
    except (ValueError, TypeError, KeyError) as error:
        return str(error)
    kinds = {"DTSTART": date, "DTEND": date, "DURATION": timedelta}
    for name, value in values.items():
        if not isinstance(value, kinds[name]):
            return f"{name} is not a {'duration' if name == 'DURATION' else 'date or a time'}"
    return None


def _header(header: list[Line], where: str, problems: list[Problem]) -> icalendar.Calendar:
    body = "".join(line.text + "\r\n" for line in header if not line.cut)
    try:
        calendar = icalendar.Calendar.from_ical(f"BEGIN:VCALENDAR\r\n{body}END:VCALENDAR\r\n")
    except ValueError as error:
        problems.append(Problem(where, 1, "VCALENDAR", f"calendar properties not read: {error}"))
        return _new_calendar(None)
    for prop, message in calendar.errors:
        problems.append(
            Problem(where, None, "VCALENDAR", f"{prop or 'a line'} left out: {message}")
        )
        if prop is not None:
            calendar.pop(prop, None)
    return calendar


def _default_zone(calendar: icalendar.Calendar, where: str, problems: list[Problem]) -> str | None:
    zone = _text(calendar.get("X-WR-TIMEZONE"))
    try:
        return None if zone is None else ZoneInfo(zone).key
    except (ValueError, ZoneInfoNotFoundError):
        pass
    problems.append(Problem(where, None, "VCALENDAR", f"unknown X-WR-TIMEZONE '{zone}'; ignored"))
    calendar.pop("X-WR-TIMEZONE")
    return None


def _new_calendar(prodid: object) -> icalendar.Calendar:
    calendar = icalendar.Calendar()
    calendar.add("PRODID", str(prodid) if prodid else PRODID)
    calendar.add("VERSION", "2.0")
    return calendar


def _tzids(component: icalendar.Component) -> set[str]:
    found: set[str] = set()
    for part in component.walk():
        for value in part.values():
            for item in value if isinstance(value, list) else [value]:
                tzid = getattr(item, "params", {}).get("TZID")
                if tzid:
                    found.add(str(tzid))
    return found


def _text(value: object) -> str | None:
    return str(value) if value is not None and str(value).strip() else None
