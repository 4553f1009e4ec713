"""The calendar tools that only look: list, search, free/busy and free slots.

Everything is read from the offline store, so these work without a network. Event text
(titles, places, descriptions) comes from other people and is fenced as untrusted by the core.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime, time, timedelta
from typing import Any

from hearth import tool
from hearth.connectors.calendar.freebusy import WorkingHours, busy_periods, free_slots
from hearth.connectors.calendar.library import SYNCING, CalendarLibrary
from hearth.connectors.calendar.objects import Occurrence, Problem
from hearth.connectors.calendar.results import EventItem, EventList, FreeBusy, FreeSlots, Period
from hearth.connectors.calendar.when import read_range

LIST_LIMIT = 100
SEARCH_DAYS_BACK, SEARCH_DAYS_AHEAD = 30, 365
DESCRIPTION_CHARS = 500
SLOTS_SHOWN = 5
PROBLEMS_SHOWN = 10


class ReadingTools:
    """The calendar connector's tools that only look; a named calendar must exist."""

    library: CalendarLibrary

    @tool(effect="read", scope="calendar", keywords=("agenda", "schedule"), check="check_calendar")
    def list_events(
        self,
        start: str = "today",
        end: str | None = None,
        calendar: str | None = None,
        page: int = 1,
    ) -> EventList:
        """List the events in a date range, recurring ones expanded.

        Args:
            start: First day or time, as YYYY-MM-DD, YYYY-MM-DDTHH:MM, or a word like today,
                tomorrow or thursday.
            end: Last day (included) or end time; without it, just the start day.
            calendar: Only this calendar; without it, every calendar.
            page: Which page of a long result to read (1 is the first).
        """
        begin, finish = read_range(start, end, self.library.zone(), today=self.library.today())
        found, problems = self.library.occurrences(begin, finish, calendar)
        return self._listed(found, problems).paged(page)

    @tool(effect="read", scope="calendar", keywords=("find", "search"), check="check_calendar")
    def search(
        self,
        words: str,
        start: str | None = None,
        end: str | None = None,
        calendar: str | None = None,
        page: int = 1,
    ) -> EventList:
        """Find events whose title, place or description contains all the words.

        Args:
            words: Words to look for, e.g. dentist.
            start: Search from this day (YYYY-MM-DD); without it, from a month ago.
            end: Search up to this day (included); without it, a year ahead.
            calendar: Only this calendar; without it, every calendar.
            page: Which page of a long result to read (1 is the first).
        """
        today = self.library.today()
        first = start or (today - timedelta(days=SEARCH_DAYS_BACK)).isoformat()
        last = end or (today + timedelta(days=SEARCH_DAYS_AHEAD)).isoformat()
        begin, finish = read_range(first, last, self.library.zone(), today=today)
        found, problems = self.library.occurrences(begin, finish, calendar)
        wanted = words.casefold().split()
        hits = [item for item in found if all(word in _text_of(item) for word in wanted)]
        return self._listed(hits, problems).paged(page)

    @tool(effect="read", scope="calendar", keywords=("busy", "free"), check="check_calendar")
    def free_busy(
        self, start: str = "today", end: str | None = None, calendar: str | None = None
    ) -> FreeBusy:
        """When the user is busy in a range (times only, no event details).

        Args:
            start: First day or time, as YYYY-MM-DD or a word like today or monday.
            end: Last day (included) or end time; without it, just the start day.
            calendar: Only this calendar; without it, every calendar.
        """
        zone = self.library.zone()
        begin, finish = read_range(start, end, zone, today=self.library.today())
        found, problems = self.library.occurrences(begin, finish, calendar)
        busy = [
            Period(start=_shown(max(a, begin)), end=_shown(min(b, finish)))
            for a, b in busy_periods(found, zone)
            if b > begin and a < finish
        ]
        note = _problems_note(problems)
        return FreeBusy(
            busy=busy, time_zone=zone.key, note=note, problems=_listed_problems(problems)
        )

    @tool(
        effect="read", scope="calendar", keywords=("free", "slot", "time"), check="check_calendar"
    )
    def find_free_slot(
        self,
        duration_minutes: int = 60,
        start: str = "today",
        end: str | None = None,
        working_hours_only: bool = True,
        calendar: str | None = None,
    ) -> FreeSlots:
        """Find free times of a given length, earliest first.

        Args:
            duration_minutes: How long the free time must be, in minutes.
            start: Look from this day, e.g. today or next monday (YYYY-MM-DD also works).
            end: Look up to this day (included); without it, the 7 days from the start.
            working_hours_only: Only inside the user's working hours on weekdays.
            calendar: Only count events in this calendar; without it, every calendar.
        """
        library = self.library
        zone = library.zone()
        begin, finish = read_range(start, end, zone, today=library.today(), default_days=7)
        begin = max(begin, _next_quarter(library.now()))
        duration = timedelta(minutes=max(1, duration_minutes))
        found, problems = library.occurrences(begin, finish, calendar)
        settings = library.public_settings()
        hours = WorkingHours(start=_hour(settings.day_starts), end=_hour(settings.day_ends))
        open_ = free_slots(
            busy_periods(found, zone),
            begin,
            finish,
            duration,
            zone,
            hours if working_hours_only else None,
        )
        slots = [Period(start=_shown(a), end=_shown(a + duration)) for a, _ in open_]
        note = _problems_note(problems)
        if not slots:
            note = "no free time of that length in the range" + (f"; {note}" if note else "")
        return FreeSlots(
            slots=slots[:SLOTS_SHOWN],
            time_zone=zone.key,
            note=note,
            problems=_listed_problems(problems),
        )

    def check_calendar(self, arguments: Mapping[str, Any]) -> None:
        name = arguments.get("calendar")
        if name:
            self.library.store.calendar(str(name))

    def _listed(self, found: list[Occurrence], problems: list[Problem]) -> EventList:
        items = [_item(occurrence) for occurrence in found[:LIST_LIMIT]]
        notes = [_problems_note(problems) or ""]
        if len(found) > LIST_LIMIT:
            notes.append(f"{len(found) - LIST_LIMIT} more not shown; narrow the range")
        note = "; ".join(text for text in notes if text) or None
        return EventList(
            events=items,
            time_zone=self.library.zone().key,
            note=note,
            problems=_listed_problems(problems),
        )


def _item(occurrence: Occurrence) -> EventItem:
    description = occurrence.description
    if len(description) > DESCRIPTION_CHARS:
        description = description[: DESCRIPTION_CHARS - 1] + "…"
    return EventItem(
        id=occurrence.uid,
        calendar=occurrence.calendar,
        title=occurrence.title,
        start=_shown(occurrence.start),
        end=_shown(occurrence.end),
        all_day=occurrence.all_day,
        occurrence=occurrence.recurrence_id,
        location=occurrence.location,
        description=description,
        attendees=list(occurrence.attendees),
    )


def _shown(value: datetime | date) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%dT%H:%M")
    return value.isoformat()


def _text_of(occurrence: Occurrence) -> str:
    return " ".join((occurrence.title, occurrence.location, occurrence.description)).casefold()


def _problems_note(problems: Iterable[Problem]) -> str | None:
    """What the listing may lack: calendars still syncing, and parts that could not be read."""
    found = list(problems)
    notes = [f"{p.where} is {p.message}" for p in found if p.component == SYNCING]
    count = len(found) - len(notes)
    if count:
        parts = "1 part" if count == 1 else f"{count} parts"
        notes.append(f"{parts} of the calendars could not be read or listed in full; see problems")
    return "; ".join(notes) or None


def _listed_problems(problems: Iterable[Problem]) -> list[str]:
    """Each problem with its file and line, the first PROBLEMS_SHOWN of them."""
    listed = [problem.describe() for problem in problems]
    if len(listed) > PROBLEMS_SHOWN:
        listed[PROBLEMS_SHOWN:] = [f"and {len(listed) - PROBLEMS_SHOWN} more"]
    return listed


def _hour(value: int) -> time:
    return time(23, 59) if value >= 24 else time(value)


def _next_quarter(moment: datetime) -> datetime:
    rounded = moment.replace(second=0, microsecond=0)
    return rounded + timedelta(minutes=(-rounded.minute) % 15)
