"""What the calendar change tools tell the gate and the card before a call runs.

Checks refuse a call that cannot run; `notifies` names everyone the server will mail; previews
and slots show the event before and after, in the user's zone. Previews and slots never raise
for bad input (the check refuses such a call first).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from typing import Any, Literal

from hearth import TimeSlot
from hearth.connectors.calendar.editing import (
    EventFields,
    attendees_of,
    change_object,
    new_object,
)
from hearth.connectors.calendar.errors import CalendarError, EventNotFound, ReadOnlyCalendar
from hearth.connectors.calendar.eventview import EventView, view
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.calendar.objects import StoredObject
from hearth.connectors.calendar.previews import describe, diff, extent
from hearth.connectors.calendar.when import read_moment

CHANGEABLE = ("title", "start", "end", "location", "description", "attendees")
_BUSY_SHOWN = 8
Kind = Literal["before", "after", "busy"]


class ProposalHooks:
    """Checks, notified people, previews and day-view slots of the calendar change tools."""

    library: CalendarLibrary

    def check_create(self, arguments: Mapping[str, Any]) -> None:
        self._writable(str(arguments.get("calendar", "")))
        self._fields(
            str(arguments.get("title", "")),
            str(arguments.get("start", "")),
            arguments.get("end"),
            "",
            "",
            arguments.get("attendees"),
        )

    def check_change(self, arguments: Mapping[str, Any]) -> None:
        self._writable(str(arguments.get("calendar", "")))
        self._event(str(arguments.get("calendar", "")), str(arguments.get("id", "")))
        for name in ("start", "end"):
            if arguments.get(name):
                read_moment(str(arguments[name]), self.library.zone(), today=self.library.today())

    def invited_by_create(self, arguments: Mapping[str, Any]) -> list[str]:
        return [str(person) for person in arguments.get("attendees") or []]

    def notified_by_change(self, arguments: Mapping[str, Any]) -> list[str]:
        """Everyone the server will mail about this change: the guests before and after."""
        obj = self._event(str(arguments.get("calendar", "")), str(arguments.get("id", "")))
        new = [str(person) for person in arguments.get("attendees") or []]
        return [*attendees_of(obj.ics), *new]

    def preview_create(self, arguments: Mapping[str, Any]) -> str:
        try:
            fields = self._fields(
                str(arguments.get("title", "")),
                str(arguments.get("start", "")),
                arguments.get("end"),
                str(arguments.get("location", "")),
                str(arguments.get("description", "")),
                arguments.get("attendees"),
            )
            ics = new_object("preview", fields, self.library.zone(), now=self.library.now())
        except CalendarError as error:
            return f"Create an event in {arguments.get('calendar')}: {error}"
        lines = describe(view(ics, self.library.zone()), self.library.zone())
        text = f"Create in {arguments.get('calendar')}: " + "\n".join(lines)
        return text + _invitation_line(fields.attendees, "Invitations go to")

    def preview_update(self, arguments: Mapping[str, Any]) -> str:
        zone, occurrence = self.library.zone(), arguments.get("occurrence")
        try:
            obj = self._event(str(arguments.get("calendar", "")), str(arguments.get("id", "")))
            before = view(obj.ics, zone, occurrence)
            after_ics = change_object(
                obj.ics,
                self._changes(arguments),
                zone,
                occurrence=occurrence,
                now=self.library.now(),
            )
            after = view(after_ics, zone, occurrence)
        except CalendarError as error:
            return f"Change an event in {arguments.get('calendar')}: {error}"
        lines = diff(before, after, zone) or ["nothing changes"]
        head = f"Change {before.title!r} in {obj.calendar}:"
        notified = sorted({*before.attendees, *after.attendees})
        tail = extent(before, occurrence, zone)
        text = "\n".join([head, *lines, *([tail] if tail else [])])
        return text + _invitation_line(tuple(notified), "Updates go to")

    def preview_delete(self, arguments: Mapping[str, Any]) -> str:
        zone, occurrence = self.library.zone(), arguments.get("occurrence")
        try:
            obj = self._event(str(arguments.get("calendar", "")), str(arguments.get("id", "")))
            before = view(obj.ics, zone, occurrence)
        except CalendarError as error:
            return f"Delete an event in {arguments.get('calendar')}: {error}"
        what = "one occurrence of" if occurrence and before.recurring else "the event"
        series = "" if occurrence or not before.recurring else f" and every repeat ({before.rule})"
        lines = [f"Delete {what} " + "\n".join(describe(before, zone)) + series]
        return "\n".join(lines) + _invitation_line(before.attendees, "Cancellations go to")

    def _event(self, calendar: str, uid: str) -> StoredObject:
        store = self.library.store
        name = store.calendar(calendar).name
        obj = store.find(uid)
        if obj.calendar != name:
            raise EventNotFound(f"event {uid!r} is in the calendar {obj.calendar!r}, not {name!r}")
        return obj

    def _writable(self, calendar: str) -> None:
        ref = self.library.store.calendar(calendar)
        if not ref.writable:
            raise ReadOnlyCalendar(f"the calendar {ref.name!r} can be read but not changed")

    def _fields(
        self,
        title: str,
        start: str,
        end: object,
        location: str,
        description: str,
        attendees: object,
    ) -> EventFields:
        zone, today = self.library.zone(), self.library.today()
        first = read_moment(start, zone, today=today)
        last = _default_end(first) if not end else read_moment(str(end), zone, today=today)
        people = tuple(str(p) for p in attendees) if isinstance(attendees, list) else ()
        return EventFields(title.strip(), first, last, location, description, people)

    def _changes(self, arguments: Mapping[str, Any]) -> dict[str, object]:
        zone, today = self.library.zone(), self.library.today()
        changes: dict[str, object] = {}
        for name in CHANGEABLE:
            value = arguments.get(name)
            if value is None:
                continue
            if name in ("start", "end"):
                value = read_moment(str(value), zone, today=today)
            elif name == "attendees":
                value = tuple(str(person) for person in value)
            changes[name] = value
        if not changes:
            raise CalendarError("nothing to change: give a new title, time, place, notes or guests")
        return changes

    def slots_of_create(self, arguments: Mapping[str, Any]) -> list[TimeSlot]:
        fields = self._fields(
            str(arguments.get("title", "")),
            str(arguments.get("start", "")),
            arguments.get("end"),
            "",
            "",
            None,
        )
        after = _slot(fields.title, fields.start, fields.end, "after", self.library)
        return [*self._busy_around(after), after]

    def slots_of_update(self, arguments: Mapping[str, Any]) -> list[TimeSlot]:
        zone, occurrence = self.library.zone(), arguments.get("occurrence")
        obj = self._event(str(arguments.get("calendar", "")), str(arguments.get("id", "")))
        before_view = view(obj.ics, zone, occurrence)
        after_ics = change_object(
            obj.ics, self._changes(arguments), zone, occurrence=occurrence, now=self.library.now()
        )
        after = _from_view(view(after_ics, zone, occurrence), "after", self.library)
        before = _from_view(before_view, "before", self.library)
        return [*self._busy_around(after, skip=obj.uid), before, after]

    def slots_of_delete(self, arguments: Mapping[str, Any]) -> list[TimeSlot]:
        obj = self._event(str(arguments.get("calendar", "")), str(arguments.get("id", "")))
        before = view(obj.ics, self.library.zone(), arguments.get("occurrence"))
        return [_from_view(before, "before", self.library)]

    def _busy_around(self, slot: TimeSlot, skip: str | None = None) -> list[TimeSlot]:
        """The other events on the day the new slot lands on."""
        day = slot.start.date()
        zone = self.library.zone()
        begin = datetime.combine(day, time(0), tzinfo=zone)
        found, _ = self.library.occurrences(begin, begin + timedelta(days=1))
        busy = [
            _slot(item.title, item.start, item.end, "busy", self.library)
            for item in found
            if item.uid != skip and item.busy and not item.all_day
        ]
        return busy[:_BUSY_SHOWN]


def _default_end(start: datetime | date) -> datetime | date:
    return start + (timedelta(hours=1) if isinstance(start, datetime) else timedelta(days=1))


def _invitation_line(people: tuple[str, ...], label: str) -> str:
    return f"\n{label}: {', '.join(people)}" if people else ""


def _from_view(event: EventView, kind: Kind, library: CalendarLibrary) -> TimeSlot:
    return _slot(event.title, event.start, event.end, kind, library)


def _slot(
    title: str, start: datetime | date, end: datetime | date, kind: Kind, library: CalendarLibrary
) -> TimeSlot:
    zone = library.zone()
    first = start if isinstance(start, datetime) else datetime.combine(start, time(0), zone)
    last = end if isinstance(end, datetime) else datetime.combine(end, time(0), zone)
    return TimeSlot(title, first.astimezone(zone), last.astimezone(zone), kind)
