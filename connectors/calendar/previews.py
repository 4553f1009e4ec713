"""What a consent card shows before a calendar change runs: the event before and after, in
the user's time zone, and whether one occurrence or the whole series changes."""

from __future__ import annotations

import unicodedata
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from hearth.connectors.calendar.eventview import EventView

_TEXT_CHARS = 200


def when(view: EventView, zone: ZoneInfo) -> str:
    """ "Thu 3 Dec 2026, 15:00–16:00" or "Thu 3 Dec 2026 (all day)", in `zone`."""
    start, end = view.start, view.end
    if not isinstance(start, datetime) or not isinstance(end, datetime):
        last = end - timedelta(days=1) if isinstance(end, date) else start
        days = _day(start) if last <= start else f"{_day(start)} – {_day(last)}"
        return f"{days} (all day)"
    start, end = start.astimezone(zone), end.astimezone(zone)
    if start.date() == end.date():
        return f"{_day(start)}, {start:%H:%M}–{end:%H:%M}"
    return f"{_day(start)}, {start:%H:%M} – {_day(end)}, {end:%H:%M}"


def describe(view: EventView, zone: ZoneInfo) -> list[str]:
    lines = [f"{_clip(view.title)!r}: {when(view, zone)}"]
    if view.location:
        lines.append(f"at {_clip(view.location)}")
    if view.attendees:
        lines.append(f"with {', '.join(view.attendees)}")
    return lines


def diff(before: EventView, after: EventView, zone: ZoneInfo) -> list[str]:
    """Only what changes, as "before → after" lines."""
    pairs = [
        ("Title", _clip(before.title), _clip(after.title)),
        ("When", when(before, zone), when(after, zone)),
        ("Place", _clip(before.location) or "none", _clip(after.location) or "none"),
        ("Notes", _clip(before.description) or "none", _clip(after.description) or "none"),
        ("Guests", ", ".join(before.attendees) or "none", ", ".join(after.attendees) or "none"),
    ]
    return [f"{label}: {old} → {new}" for label, old, new in pairs if old != new]


def extent(view: EventView, occurrence: str | None, zone: ZoneInfo) -> str:
    """Which part of a recurring event a change touches."""
    if not view.recurring:
        return ""
    rule = f" ({view.rule})" if view.rule else ""
    if occurrence is None:
        return f"The whole series{rule} changes."
    return f"Only the occurrence on {when(view, zone)} changes; the rest of the series{rule} stays."


def _day(value: date) -> str:
    return f"{value:%a} {value.day} {value:%b %Y}"


def _clip(text: str) -> str:
    # Event text is written by others: nothing that hides, reorders or recolours it is shown.
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf"))
    text = " ".join(text.split())
    return text if len(text) <= _TEXT_CHARS else text[: _TEXT_CHARS - 1] + "…"
