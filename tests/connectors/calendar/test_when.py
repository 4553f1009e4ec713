"""Dates as a small model writes them."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from hearth.connectors.calendar.errors import CalendarError
from hearth.connectors.calendar.when import read_moment, read_range
from tests.connectors.calendar.kit import BERLIN, TODAY


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("today", date(2026, 12, 1)),
        ("Tomorrow", date(2026, 12, 2)),
        ("tuesday", date(2026, 12, 1)),
        ("thursday", date(2026, 12, 3)),
        ("on monday", date(2026, 12, 7)),
        ("next monday", date(2026, 12, 7)),
        ("next friday", date(2026, 12, 11)),
        ("next week", date(2026, 12, 7)),
        ("2026-12-24", date(2026, 12, 24)),
        ("2026-12-24T15:30", datetime(2026, 12, 24, 15, 30, tzinfo=BERLIN)),
        ("2026-12-24 15:30", datetime(2026, 12, 24, 15, 30, tzinfo=BERLIN)),
        ("2026-12-24T14:30Z", datetime(2026, 12, 24, 15, 30, tzinfo=BERLIN)),
    ],
)
def test_words_and_iso_text(text: str, expected: object) -> None:
    assert read_moment(text, BERLIN, today=TODAY) == expected


@pytest.mark.parametrize("text", ["", "soon", "2026-13-01", "the 5th"])
def test_unreadable_dates_say_how_to_write_them(text: str) -> None:
    with pytest.raises(CalendarError, match="YYYY-MM-DD"):
        read_moment(text, BERLIN, today=TODAY)


def test_a_range_of_days_includes_the_last_day_and_crosses_dst() -> None:
    begin, end = read_range("2026-10-24", "2026-10-25", BERLIN, today=TODAY)
    assert (begin.isoformat(), end.isoformat()) == (
        "2026-10-24T00:00:00+02:00",
        "2026-10-26T00:00:00+01:00",
    )
    # Same-zone subtraction in Python is by wall clock; the real span is 49 hours.
    assert (end.astimezone(UTC) - begin.astimezone(UTC)).total_seconds() == 49 * 3600


def test_a_range_that_ends_before_it_starts_is_refused() -> None:
    with pytest.raises(CalendarError, match="before it starts"):
        read_range("2026-12-05", "2026-12-01", BERLIN, today=TODAY)
