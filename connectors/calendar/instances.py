"""An event object's occurrences worked out ahead, so a query reads them instead of expanding.

When an object is stored, `recurring_ical_events` (the same engine, called the same way, as a
query's own expansion) lists its occurrences over a window: its whole span, or the years around
now for a series without end. Each occurrence keeps its start, end and original start exactly as
expansion gave them (date, floating time, or time in its zone, DST gaps and folds included), and
which component it came from; a query over part of the window picks those that overlap the range
by the engine's own rule, and builds each occurrence with `expand.occurrence_of`, as a query's
expansion does. What cannot be stored exactly is not stored: the object is expanded at query time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import recurring_ical_events
from recurring_ical_events import ComponentsWithName, EventAdapter, Occurrence
from recurring_ical_events.util import time_span_contains_event

from hearth.connectors.calendar.expand import EventFields, fields_of, is_recurring
from hearth.connectors.calendar.span import (
    DAY,
    NOWHERE,
    UNBOUNDED,
    Span,
    nominal,
    object_span,
    rule_limits,
)

PAST = 3 * 365 * DAY  # how far back from now a series without a start in sight is worked out
AHEAD = 2 * 365 * DAY  # how far ahead a series without end is worked out
LONG = 3 * DAY  # an occurrence longer than this is looked up by its end, not only its start
MAX_STORED = 20_000  # occurrences per object; a denser object is expanded at query time
_EXPANSION_ERRORS = (ValueError, TypeError, OverflowError, KeyError, icalendar.InvalidCalendar)

# (seq, low, high, long, start, end, original or None, template)
Row = tuple[int, float, float, int, str, str, str | None, int]


@dataclass(frozen=True)
class ObjectIndex:
    """What is stored beside an object: its span, and its occurrences within `window`.

    `window` None means the object is expanded at query time. Otherwise a query [s, e) may use
    `rows` when window[0] + DAY <= s and e <= window[1] - DAY (either may be infinite), and no
    rule of it is dense enough for `expand.safe_stop` to cut the query short (`min_spacing`).
    """

    span: Span
    window: Span | None = None
    min_spacing: float | None = None
    recurring: bool = False
    templates: tuple[EventFields, ...] = ()
    rows: tuple[Row, ...] = ()


def index_object(ics: str, now: float) -> ObjectIndex:
    """The span and stored occurrences of one object's text, as seen at time `now`."""
    try:
        calendar = icalendar.Calendar.from_ical(ics)
        events = calendar.walk("VEVENT")
    except ValueError:
        return ObjectIndex(UNBOUNDED)  # a query reports it, as it would have
    span = object_span(events)
    if span == NOWHERE:
        return ObjectIndex(span, window=UNBOUNDED)
    try:
        spacing, dense_until = rule_limits(events)
    except (KeyError, ValueError, TypeError, AttributeError):
        return ObjectIndex(span)
    low, high = span
    if math.isinf(high - low) or _too_many(events, spacing, high - low):
        low, high = max(low, now - PAST), min(high, now + AHEAD)
    high = min(high, dense_until)
    if high <= low or _too_many(events, spacing, high - low):
        return ObjectIndex(span)
    try:
        rows, templates = _expanded(calendar, low, high)
    except (*_EXPANSION_ERRORS, _NotExact):
        return ObjectIndex(span)
    window = (-math.inf if low == span[0] else low, math.inf if high == span[1] else high)
    return ObjectIndex(span, window, spacing, is_recurring(events), templates, rows)


def decode(text: str) -> date:
    """A stored time back as the very value expansion gave (see `encode`)."""
    if len(text) == 10:
        return date.fromisoformat(text)
    wall, _, zone = text.partition(" ")
    moment = datetime.fromisoformat(wall)
    if not zone:
        return moment
    key, _, fold = zone.partition(" ")
    return moment.replace(tzinfo=ZoneInfo(key), fold=1 if fold else 0)


def encode(value: date) -> str:
    """A date, a floating time, a wall time in a named zone, or an instant (any other zone).

    `decode` gives back a value that compares, converts and prints as this one does: the same
    zone object for a named zone (ZoneInfo keeps one per name), fold and all. Raises _NotExact
    for anything else.
    """
    kind = type(value)
    if kind is date:
        return value.isoformat()
    if kind is not datetime:
        raise _NotExact
    assert isinstance(value, datetime)
    zone = value.tzinfo
    if zone is None and not value.fold:
        return value.isoformat()
    if isinstance(zone, ZoneInfo) and zone is _cached(zone.key):
        wall = value.replace(tzinfo=None).isoformat()
        return f"{wall} {zone.key} 1" if value.fold else f"{wall} {zone.key}"
    if zone is None or value.utcoffset() is None:
        raise _NotExact
    return value.astimezone(UTC).isoformat()


def contains(start: datetime, end: datetime, first: date, last: date) -> bool:
    """Whether an occurrence from `first` to `last` is listed in [start, end) (aware): the
    engine's own rule (starts inclusive, ends exclusive, a zero-length one at the start in)."""
    aware = isinstance(first, datetime) and first.tzinfo is not None
    if aware and isinstance(last, datetime) and last.tzinfo is not None:
        # All four aware: the engine compares them as they are, and so does this.
        if first == last:
            return start <= first < end
        return first < end and start < last
    return bool(time_span_contains_event(start, end, first, last))


class _NotExact(Exception):
    """A time that cannot be stored and read back exactly."""


class _Sourced(EventAdapter):  # type: ignore[misc]
    """An event adapter that says which component an occurrence comes from."""

    @property
    def source(self) -> icalendar.Component:
        component: icalendar.Component = self._component
        return component


class _Kept(Occurrence):  # type: ignore[misc]
    """An occurrence kept as it is, instead of copied into a new component."""

    def as_component(self, keep_recurrence_attributes: bool) -> Any:
        return self

    @property
    def source(self) -> icalendar.Component:
        adapter: _Sourced = self._adapter
        return adapter.source


def _expanded(
    calendar: icalendar.Calendar, low: float, high: float
) -> tuple[tuple[Row, ...], tuple[EventFields, ...]]:
    selection = ComponentsWithName("VEVENT", adapter=_Sourced, occurrence=_Kept)
    query = recurring_ical_events.of(calendar, components=[selection])
    found: list[_Kept] = query.between(_instant(low), _instant(high))
    templates: dict[int, int] = {}
    fields: list[EventFields] = []
    rows: list[Row] = []
    for seq, item in enumerate(found):
        source = item.source
        if id(source) not in templates:
            templates[id(source)] = len(fields)
            fields.append(fields_of(source))
        start, end = encode(item.start), encode(item.end)
        first, last = nominal(item.start), nominal(item.end)
        if last < first:
            raise _NotExact
        original = source.decoded("RECURRENCE-ID") if "RECURRENCE-ID" in source else None
        kept = None if original is None else encode(original)
        long = int(last - first > LONG)
        rows.append((seq, first, last, long, start, end, kept, templates[id(source)]))
    return tuple(rows), tuple(fields)


def _too_many(events: list[icalendar.Component], spacing: float | None, length: float) -> bool:
    """Whether the window could hold more than MAX_STORED occurrences."""
    if spacing is None:
        return False
    return length / spacing * len(events) > MAX_STORED


def _instant(seconds: float) -> datetime:
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=seconds)


def _cached(key: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(key)
    except (ValueError, OSError):
        return None
