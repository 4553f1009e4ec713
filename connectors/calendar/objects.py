"""The calendar connector's shared vocabulary: calendars, stored objects and where they live.

Every source (a local ICS file, a CalDAV collection) is seen the same way: calendars holding
*objects*, one per event UID. An object is a whole VCALENDAR text holding that UID's master
event, its RECURRENCE-ID overrides and the VTIMEZONEs they use, with an `etag` that changes
whenever the object does. Writes name the etag they expect, so nothing is overwritten unseen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal, NamedTuple, Protocol

SourceKind = Literal["ics", "caldav"]


@dataclass(frozen=True)
class CalendarRef:
    """One calendar: its display name (the consent scope), where it lives, and if it is writable.

    `location` is the ICS file's real path, or the CalDAV collection's URL.
    """

    name: str
    source: SourceKind
    location: str
    writable: bool = True
    color: str | None = None


@dataclass(frozen=True)
class StoredObject:
    """One event's VCALENDAR text as stored, with the version tag a write must name.

    `href` is the CalDAV resource URL, or `<file path>#<uid>` for a local file. `etag` is the
    server's ETag, or for a file a hash of the file as read.
    """

    calendar: str
    uid: str
    href: str
    etag: str
    ics: str


@dataclass(frozen=True)
class Problem:
    """A part of a calendar that could not be read; the rest still loads."""

    where: str  # the file or URL
    line: int | None
    component: str  # e.g. "VEVENT 'Standup'" or "VTIMEZONE Europe/Nowhere"
    message: str

    def describe(self) -> str:
        at = f" line {self.line}" if self.line is not None else ""
        return f"{self.where}{at}: {self.component}: {self.message}"


class Occurrence(NamedTuple):
    """One happening of an event in a range, as expansion found it.

    Timed events have aware `start`/`end` (floating times are read in the user's zone);
    all-day events have `date`s with an exclusive `end`. `recurrence_id` is the original start
    of this instance in a recurring series (ISO text), None for a one-off event. `busy` is
    False for TRANSP:TRANSPARENT or cancelled instances, which free/busy ignores.

    A named tuple, not a frozen dataclass: a month's listing makes thousands, and a frozen
    dataclass takes about eight times as long to make.
    """

    calendar: str
    uid: str
    title: str
    start: datetime | date
    end: datetime | date
    all_day: bool = False
    location: str = ""
    description: str = ""
    attendees: tuple[str, ...] = ()
    organizer: str = ""
    recurring: bool = False
    recurrence_id: str | None = None
    busy: bool = True
    categories: tuple[str, ...] = ()


class CalendarSource(Protocol):
    """A place calendars live: read its objects, and write one naming the version expected.

    `put(..., expected_etag=None)` creates and fails with `Conflict` if the UID exists already
    (CalDAV `If-None-Match: *`); otherwise it replaces only that version (`If-Match`) and
    raises `Conflict` when the object changed. `delete` is conditional the same way.
    """

    @property
    def kind(self) -> SourceKind: ...

    def calendars(self) -> list[CalendarRef]: ...

    def objects(self, calendar: CalendarRef) -> tuple[list[StoredObject], list[Problem]]: ...

    def put(
        self, calendar: CalendarRef, uid: str, ics: str, *, expected_etag: str | None
    ) -> StoredObject: ...

    def delete(self, calendar: CalendarRef, obj: StoredObject) -> None: ...


def names(calendars: Sequence[CalendarRef]) -> list[str]:
    return [calendar.name for calendar in calendars]
