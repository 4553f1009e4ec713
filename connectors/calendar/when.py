"""Dates and ranges as a small model writes them: ISO text, or words like "thursday"."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from hearth.connectors.calendar.errors import CalendarError

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_HINT = "write a date as YYYY-MM-DD or a time as YYYY-MM-DDTHH:MM"


def read_moment(text: str, zone: ZoneInfo, *, today: date) -> datetime | date:
    """A date (all day) or an aware time in `zone` from ISO text or a day word.

    Day words: today, tomorrow, yesterday, a weekday (the next one, today included), "next
    <weekday>" (that day of next week), "next week" (its Monday). Times without an offset are
    wall time in `zone`.
    """
    words = " ".join(text.strip().lower().split())
    if not words:
        raise CalendarError(f"a date is missing; {_HINT}")
    day = _day_word(words, today)
    if day is not None:
        return day
    try:
        if len(words) <= 10:
            return date.fromisoformat(words)
        moment = datetime.fromisoformat(words.upper().replace(" ", "T"))
    except ValueError:
        raise CalendarError(f"cannot read {text!r} as a date or time; {_HINT}") from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=zone)
    return moment.astimezone(zone)


def read_range(
    start: str, end: str | None, zone: ZoneInfo, *, today: date, default_days: int = 1
) -> tuple[datetime, datetime]:
    """[start, end) as aware times; a date start means its midnight, a date end the next one.

    Without `end`, the range lasts `default_days` days from the start's day.
    """
    first = read_moment(start, zone, today=today)
    begin = _start_of(first, zone)
    if end is None or not end.strip():
        finish = (
            begin + timedelta(days=default_days)
            if isinstance(first, datetime)
            else (_start_of(first + timedelta(days=default_days), zone))
        )
    else:
        last = read_moment(end, zone, today=today)
        finish = (
            _aware(last, zone)
            if isinstance(last, datetime)
            else _start_of(last + timedelta(days=1), zone)
        )
    if finish <= begin:
        raise CalendarError(f"the range ends ({end}) before it starts ({start})")
    return begin, finish


def _day_word(words: str, today: date) -> date | None:
    if words == "today":
        return today
    if words == "tomorrow":
        return today + timedelta(days=1)
    if words == "yesterday":
        return today - timedelta(days=1)
    next_monday = today + timedelta(days=7 - today.weekday())
    if words == "next week":
        return next_monday
    name = words.removeprefix("on ")
    if name.startswith("next ") and name[5:] in _WEEKDAYS:
        # "next friday" is the Friday of next week, as a calendar reads it.
        return next_monday + timedelta(days=_WEEKDAYS.index(name[5:]))
    if name in _WEEKDAYS:
        return today + timedelta(days=(_WEEKDAYS.index(name) - today.weekday()) % 7)
    return None


def _is_day(value: datetime | date) -> bool:
    return not isinstance(value, datetime)


def _start_of(value: datetime | date, zone: ZoneInfo) -> datetime:
    if isinstance(value, datetime):
        return _aware(value, zone)
    return datetime.combine(value, time(0), tzinfo=zone)


def _aware(value: datetime, zone: ZoneInfo) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=zone)
