"""The occurrences of a range, read through the cache's time-span index.

Only objects whose span overlaps the range are looked at. Where an object's stored occurrences
cover the range they are read; anything else (an object not indexed yet, a series past its
stored horizon, a version still waiting in the offline queue) is expanded for the range alone.
The result is what expanding every object would give (`expand.occurrences`), in the same order:
the tests compare the two on random ranges.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from datetime import date, datetime
from operator import itemgetter
from zoneinfo import ZoneInfo

from hearth.connectors.calendar import timeline
from hearth.connectors.calendar.expand import (
    EventFields,
    expand_object,
    first_of,
    in_zone,
    moment,
    occurrence_of,
    too_slow,
)
from hearth.connectors.calendar.instances import contains, decode
from hearth.connectors.calendar.objects import Occurrence, Problem, StoredObject
from hearth.connectors.calendar.span import DAY

Key = tuple[str, str]  # (casefolded calendar, uid), the order objects are listed in
Sortable = tuple[tuple[datetime, str, str, int], Occurrence]


def between(
    read: timeline.Read,
    start: datetime,
    end: datetime,
    zone: ZoneInfo,
    *,
    calendar: str | None = None,
    queued: Sequence[StoredObject] = (),
    hidden: frozenset[Key] = frozenset(),
    limit: int = 10000,
    time_limit_s: float = 5.0,
) -> tuple[list[Occurrence], list[Problem]]:
    """Occurrences overlapping [start, end), sorted, at most `limit`, with what was left out.

    `queued` are the objects as queued changes make them, expanded in place of the cached
    versions of `hidden` (the events those changes touch, deleted ones included).
    """
    start, end = in_zone(start, zone), in_zone(end, zone)
    low, high = start.timestamp(), end.timestamp()
    stored: dict[Key, timeline.Candidate] = {}
    expand: list[Key] = []
    names: dict[Key, str] = {}
    for candidate in timeline.candidates(read, low, high, calendar):
        key = (candidate.calendar.casefold(), candidate.uid)
        if key in hidden:
            continue
        if candidate.covers(low, high, limit):
            stored[key] = candidate
        else:
            expand.append(key)
            names[key] = candidate.calendar
    texts = timeline.texts(read, [(names[key], key[1]) for key in expand])
    live = [((name.casefold(), uid), name, text) for (name, uid), text in texts.items()]
    live += [((obj.calendar.casefold(), obj.uid), obj.calendar, obj.ics) for obj in queued]
    problems: list[Problem] = []
    ordered = sorted(live, key=itemgetter(0))
    found = _expanded(ordered, start, end, zone, limit, problems, time_limit_s)
    found.extend(_read(read, stored, start, end, zone, calendar))
    found.sort(key=itemgetter(0))
    return first_of([occurrence for _, occurrence in found], problems, limit)


def _expanded(
    live: list[tuple[Key, str, str]],
    start: datetime,
    end: datetime,
    zone: ZoneInfo,
    limit: int,
    problems: list[Problem],
    time_limit_s: float,
) -> list[Sortable]:
    """The objects expanded for the range alone, as `expand.occurrences` does it."""
    deadline = time.monotonic() + time_limit_s
    found: list[Sortable] = []
    for key, name, text in live:
        if time.monotonic() > deadline:
            problems.append(too_slow(name, time_limit_s))
            break
        listed = expand_object(name, text, start, end, zone, limit, problems)
        found.extend(
            ((moment(item.start, zone), item.uid, key[0], seq), item)
            for seq, item in enumerate(listed)
        )
    return found


def _read(
    read: timeline.Read,
    stored: dict[Key, timeline.Candidate],
    start: datetime,
    end: datetime,
    zone: ZoneInfo,
    calendar: str | None,
) -> Iterator[Sortable]:
    """The stored occurrences of `stored` objects that overlap the range."""
    low, high = start.timestamp(), end.timestamp()
    inside_from, inside_to = low + DAY, high - DAY  # surely inside, whatever the zone
    opened: dict[tuple[str, str], tuple[timeline.Candidate, list[EventFields], str] | None] = {}
    known: dict[str, date] = {}  # times read so far: many events share a start or an end
    for name, uid, seq, first, last, begins, ends, original, template in timeline.instances(
        read, low, high, calendar
    ):
        if (name, uid) not in opened:
            candidate = stored.get((name.casefold(), uid))
            opened[(name, uid)] = (
                None if candidate is None else (candidate, candidate.fields(), name.casefold())
            )
        found = opened[(name, uid)]
        if found is None:
            continue
        candidate, fields, folded = found
        begin = known[begins] if begins in known else known.setdefault(begins, decode(begins))
        finish = known[ends] if ends in known else known.setdefault(ends, decode(ends))
        if not (first >= inside_from and last <= inside_to) and not contains(
            start, end, begin, finish
        ):
            continue
        times = (begin, finish, begin if original is None else decode(original))
        item = occurrence_of(candidate.calendar, fields[template], times, zone, candidate.recurring)
        when = item.start if isinstance(item.start, datetime) else moment(item.start, zone)
        yield (when, item.uid, folded, seq), item
