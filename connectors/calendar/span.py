"""How far in time an event object reaches, worked out once, when it is stored.

Times are kept as seconds since the epoch. A date or a floating time has no instant until the
user's zone is known, so it is read as UTC: the real instant is within 14 hours of that, and
every span is widened by a day on each side to cover it (and DST and rule-engine slack). A span
may be too wide but never too narrow: a query that skips an object outside it loses nothing. An
object whose reach cannot be read for sure (an RRULE without end, a RANGE=THISANDFUTURE override,
anything that fails to decode) is unbounded on that side.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from typing import Any

import icalendar
from dateutil.rrule import rrulestr  # type: ignore[import-untyped]

from hearth.connectors.calendar.expand import MAX_RULE_STEPS, rule_spacing

DAY = 86400.0
MAX_COUNTED = 100_000  # a COUNT above this is treated as endless rather than stepped through
Span = tuple[float, float]
UNBOUNDED: Span = (-math.inf, math.inf)
NOWHERE: Span = (math.inf, -math.inf)  # no event at all: no range ever overlaps it

_DECODE_ERRORS = (KeyError, ValueError, TypeError, OverflowError, AttributeError, IndexError)


def nominal(value: date) -> float:
    """Seconds since the epoch; a date or a floating time read as if it were UTC."""
    if not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp()
    if value.tzinfo is None or value.utcoffset() is None:
        return value.replace(tzinfo=UTC).timestamp()
    return value.timestamp()


def object_span(events: list[icalendar.Component]) -> Span:
    """The padded (first moment, last moment) any occurrence of these VEVENTs can touch."""
    low, high = math.inf, -math.inf
    try:
        for event in events:
            first, last = _event_reach(event)
            low, high = min(low, first), max(high, last)
    except _DECODE_ERRORS:
        return UNBOUNDED
    if low > high:
        return NOWHERE
    return low - DAY, high + DAY


def rule_limits(events: list[icalendar.Component]) -> tuple[float | None, float]:
    """(shortest rule spacing in seconds, the moment before which no rule is cut as too dense).

    `expand.safe_stop` cuts a listing short for a rule that repeats densely: beyond
    spacing x limit from the range's start, or spacing x MAX_RULE_STEPS from DTSTART. A stored
    expansion stands in for a query only where neither cut could apply.
    """
    shortest: float | None = None
    dense_until = math.inf
    for event in events:
        for rule in _rules(event):
            spacing = rule_spacing(rule)
            if spacing is None:
                continue
            seconds = spacing.total_seconds()
            shortest = seconds if shortest is None else min(shortest, seconds)
            first = nominal(event.decoded("DTSTART")) - DAY
            dense_until = min(dense_until, first + seconds * MAX_RULE_STEPS)
    return shortest, dense_until


def _event_reach(event: icalendar.Component) -> Span:
    """The (earliest, latest) moments one VEVENT's occurrences can touch, unpadded."""
    start = event.decoded("DTSTART")
    end = _end(event, start)
    points = [nominal(start), nominal(end)]
    length = abs(points[1] - points[0])
    recurrence = event.get("RECURRENCE-ID")
    if recurrence is not None and "RANGE" in recurrence.params:
        return UNBOUNDED  # it moves every later occurrence by its own shift
    for rdate in _dates(event.get("RDATE")):
        if isinstance(rdate, tuple):
            begin, until = rdate
            finish = begin + until if isinstance(until, timedelta) else until
            points += [nominal(begin), nominal(finish)]
        else:
            points += [nominal(rdate), nominal(rdate) + length]
    for rule in _rules(event):
        last = _last_start(rule, start)
        points.append(last + length)
    return min(points), max(points)


def _end(event: icalendar.Component, start: date) -> date:
    """The end as `recurring_ical_events` reads it: DTEND, else DTSTART + DURATION, else the
    RFC 5545 default (a day for a date, nothing for a time)."""
    if "DTEND" in event:
        end: date = event.decoded("DTEND")
        return end
    if "DURATION" in event:
        duration: timedelta = event.decoded("DURATION")
        if duration.seconds and not isinstance(start, datetime):
            start = datetime(start.year, start.month, start.day)
        return start + duration
    return start if isinstance(start, datetime) else start + timedelta(days=1)


def _last_start(rule: icalendar.vRecur, start: date) -> float:
    """The latest start the rule can give (nominal seconds); infinite when it has no end."""
    if "UNTIL" in rule:
        return nominal(rule["UNTIL"][0]) + DAY
    if "COUNT" not in rule:
        return math.inf
    count = int(rule["COUNT"][0])
    if not 0 < count <= MAX_COUNTED:
        return math.inf
    wall = start if isinstance(start, datetime) else datetime(start.year, start.month, start.day)
    text = rule.to_ical().decode()  # type: ignore[no-untyped-call]
    steps = rrulestr(text, dtstart=wall.replace(tzinfo=None), cache=False)
    last = None
    for last in steps:  # noqa: B007 (only the last one is wanted)
        pass
    return -math.inf if last is None else nominal(last) + DAY


def _rules(event: icalendar.Component) -> list[icalendar.vRecur]:
    rules = event.get("RRULE")
    if rules is None:
        return []
    return list(rules) if isinstance(rules, list) else [rules]


def _dates(prop: Any) -> list[date | tuple[date, date | timedelta]]:
    """The values of an RDATE property (dates, times or periods), however many lines it takes."""
    if prop is None:
        return []
    found: list[date | tuple[date, date | timedelta]] = []
    for line in prop if isinstance(prop, list) else [prop]:
        found.extend(item.dt for item in line.dts)
    return found
