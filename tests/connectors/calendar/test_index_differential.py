"""The time-span index against the full parse it replaces, on random ranges.

The oracle is the way every listing used to work and every object's expansion still works:
`expand.occurrences` over every cached object. A listing through the index
(`CalendarStore.occurrences`) must give exactly its occurrences, in its order, with its
problems, for seeded random ranges (DST weeks and their odd hours among them) in three zones,
over a calendar with recurrences, overrides, EXDATEs, RDATEs, floating and all-day events.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from hearth.connectors.calendar import timeline
from hearth.connectors.calendar.expand import occurrences
from hearth.connectors.calendar.instances import AHEAD
from hearth.connectors.calendar.local import IcsFileSource
from hearth.connectors.calendar.objects import Occurrence, Problem
from hearth.connectors.calendar.store import CalendarStore
from tests.connectors.calendar.rich_calendar import rich_calendar

NOW = datetime(2026, 12, 1, 9, tzinfo=UTC).timestamp()
ZONES = [ZoneInfo(name) for name in ("Europe/Berlin", "America/New_York", "Asia/Tokyo")]
BERLIN = ZONES[0]
LENGTHS = [timedelta(hours=1), timedelta(days=1), timedelta(days=7), timedelta(days=31)]
LENGTHS += [timedelta(days=90), timedelta(minutes=1)]
DST_RANGES = [  # Berlin's DST weeks, and ranges that start or end in the odd hours themselves
    (datetime(2026, 3, 23, tzinfo=BERLIN), timedelta(days=7)),
    (datetime(2026, 10, 19, tzinfo=BERLIN), timedelta(days=7)),
    (datetime(2026, 3, 29, 2, 30, tzinfo=BERLIN), timedelta(hours=1)),
    (datetime(2026, 10, 25, 2, 30, tzinfo=BERLIN), timedelta(minutes=30)),
    (datetime(2026, 10, 25, 2, 30, fold=1, tzinfo=BERLIN), timedelta(hours=2)),
    (datetime(2026, 10, 25, tzinfo=BERLIN), timedelta(days=1)),
]

Listing = tuple[list[Occurrence], list[Problem]]


@pytest.fixture
def rich(tmp_path: Path) -> CalendarStore:
    """The rich calendar as a granted .ics file, synced into a cache on 1 December 2026."""
    path = tmp_path / "rich.ics"
    path.write_text(rich_calendar(), newline="")
    source = IcsFileSource(lambda: [path])
    store = CalendarStore(tmp_path / "cache.sqlite3", lambda: [source], clock=lambda: NOW)
    [state] = store.refresh()
    assert state.online and state.progress is None and not state.problems
    return store


def full_parse(store: CalendarStore, start: datetime, end: datetime, zone: ZoneInfo) -> Listing:
    objects = [(obj.calendar, obj.ics) for obj in store.objects()]
    return occurrences(objects, start, end, zone, time_limit_s=60)


def exactly(listing: Listing) -> list[object]:
    """Every occurrence with its times spelled out (offset, zone, fold), and the problems."""

    def spelled(value: date) -> tuple[str, str, int]:
        zone = getattr(value, "tzinfo", None)
        return value.isoformat(), str(zone), getattr(value, "fold", 0)

    found, problems = listing
    return [(o, spelled(o.start), spelled(o.end)) for o in found] + list(problems)


def random_ranges(seed: int, count: int) -> list[tuple[datetime, timedelta]]:
    """Starts from 2023 to 2030 (past the stored windows both ways), whole days or any minute."""
    rng = random.Random(seed)
    ranges = []
    first = datetime(2023, 1, 1, tzinfo=UTC)
    for _ in range(count):
        start = first + timedelta(minutes=rng.randrange(8 * 365 * 24 * 60))
        if rng.random() < 0.5:
            start = start.replace(hour=0, minute=0)
        ranges.append((start, rng.choice(LENGTHS)))
    return ranges


def test_the_index_lists_exactly_what_the_full_parse_lists(rich: CalendarStore) -> None:
    ranges = random_ranges(seed=20261201, count=40) + DST_RANGES
    listed = 0
    for number, (start, length) in enumerate(ranges):
        zone = ZONES[number % len(ZONES)]
        begin = start.astimezone(zone)
        expected = full_parse(rich, begin, begin + length, zone)
        assert exactly(rich.occurrences(begin, begin + length, zone)) == exactly(expected), (
            f"range {number}: {begin.isoformat()} + {length} in {zone.key}"
        )
        listed += len(expected[0])
    assert listed > 1000  # the ranges are not all empty


def test_most_objects_are_read_from_stored_occurrences(rich: CalendarStore) -> None:
    """Otherwise the comparison above would only compare expansion with itself."""
    start = datetime(2026, 6, 1, tzinfo=BERLIN).timestamp()
    found = timeline.candidates(rich._cache.read, start, start + 30 * 86400, None)
    stored = [c.uid for c in found if c.covers(start, start + 30 * 86400, 10000)]
    expanded = {c.uid for c in found} - set(stored)
    assert len(stored) > 20
    assert expanded == {"hourly"}  # too dense to store


def test_a_range_past_the_stored_horizon_is_expanded_and_still_exact(rich: CalendarStore) -> None:
    far = datetime.fromtimestamp(NOW + AHEAD + 30 * 86400, BERLIN)
    assert exactly(rich.occurrences(far, far + timedelta(days=7), BERLIN)) == exactly(
        full_parse(rich, far, far + timedelta(days=7), BERLIN)
    )


def test_a_series_is_worked_out_further_as_time_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "rich.ics"
    path.write_text(rich_calendar(), newline="")
    source = IcsFileSource(lambda: [path])
    now = [NOW]
    store = CalendarStore(tmp_path / "cache.sqlite3", lambda: [source], clock=lambda: now[0])
    store.refresh()
    week = datetime.fromtimestamp(NOW + AHEAD + 30 * 86400, BERLIN)
    week_end = week.timestamp() + 7 * 86400

    def shift_covers() -> bool:
        [night] = [
            c
            for c in timeline.candidates(store._cache.read, week.timestamp(), week_end, None)
            if c.uid == "night-shift"
        ]
        return night.covers(week.timestamp(), week_end, 10000)

    assert not shift_covers()
    now[0] = NOW + 400 * 86400
    store.refresh()  # the file did not change; its series are worked out further all the same
    assert shift_covers()
    assert exactly(store.occurrences(week, week + timedelta(days=7), BERLIN)) == exactly(
        full_parse(store, week, week + timedelta(days=7), BERLIN)
    )
