"""The calendar tools' results word themselves for their cards."""

from __future__ import annotations

from hearth import summary_of
from hearth.connectors.calendar.results import Changed, EventItem, EventList, FreeSlots, Period


def event(title: str, start: str) -> EventItem:
    return EventItem(id="e", calendar="Home", title=title, start=start, end=start)


def test_events_read_as_their_count_and_first_titles_with_what_was_left_out() -> None:
    events = [event("Dentist", "2026-12-03T09:30"), event("Lunch", "2026-12-03T12:00")]
    listed = EventList(events=events, time_zone="Europe/Oslo")
    assert summary_of(listed) == "2 events: Dentist (2026-12-03T09:30), Lunch (2026-12-03T12:00)"
    broken = EventList(events=[], time_zone="UTC", problems=["work.ics line 4", "b", "c"])
    assert summary_of(broken) == "No events.\n⚠ Left out: work.ics line 4 (+2 more)"
    spoof = EventList(events=[event("Pay\u202enow", "2026-12-03")], time_zone="UTC")
    assert summary_of(spoof) == "1 event: Pay\\u202enow (2026-12-03)"


def test_free_times_and_changes_say_what_they_are() -> None:
    slots = FreeSlots(slots=[Period(start="09:00", end="10:00")], time_zone="UTC")
    assert summary_of(slots) == "1 free time: 09:00–10:00"
    made = Changed(action="created", id="e", calendar="Home", title="Dentist", change="c1")
    assert summary_of(made) == "Created 'Dentist' in Home"
