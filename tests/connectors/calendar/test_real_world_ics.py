"""Real-world calendars: the test calendars icalendar and recurring_ical_events ship, read in place.

Both folders are granted to one `CalendarLibrary`, which syncs them as it would the user's files.
For every file recurring_ical_events can read, Hearth must list the same occurrences at the same
instants over two years from the file's first event; every file it cannot read must show a
problem in Hearth. The few that cannot match for a reason of principle are listed in `DIFFERENT`
with that reason, and must still show a problem.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events

from hearth import SettingsStore
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.calendar.objects import Occurrence
from hearth.connectors.calendar.settings import CalendarSettings

ZONE = ZoneInfo("Europe/Berlin")  # floating times are read here, by Hearth and below alike
SPAN = timedelta(days=730)
FALLBACK_START = datetime(2020, 1, 1, tzinfo=ZONE)  # for files with no readable event start
SHIPPED = (("icalendar", "tests/calendars"), ("recurring_ical_events", "test/calendars"))

DIFFERENT = {
    "issue_722_missing_VTIMEZONE_custom.ics": (
        "its TZID 'CUSTOM_tzid' has no VTIMEZONE and is no known zone: Hearth reads the time "
        "as UTC and says so; recurring_ical_events reads it as floating local time"
    ),
    "issue_178_custom_component_contains_other.ics": (
        "it holds no VCALENDAR, only an X- component wrapping an event: Hearth refuses it as "
        "not a calendar; recurring_ical_events walks whatever component icalendar returns"
    ),
}

Moments = list[tuple[str, str]]


@dataclass(frozen=True)
class Verdict:
    """How one file fared: the reference's occurrences (or why it could not read it), Hearth's."""

    name: str
    expected: Moments | str
    listed: Moments
    problems: list[str]


def shipped_folders() -> list[Path]:
    """The packages' own calendar folders, where they are installed (never copied)."""
    return [Path(str(importlib.resources.files(package))) / folder for package, folder in SHIPPED]


def instant(value: date) -> datetime:
    """A time as an aware datetime (floating read in ZONE); a day as its midnight in ZONE."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=ZONE)
    return datetime.combine(value, time(), ZONE)


def moment(value: date) -> str:
    """An instant in UTC, or the day of an all-day occurrence."""
    return instant(value).astimezone(UTC).isoformat() if isinstance(value, datetime) else str(value)


def window(calendar: icalendar.Component) -> tuple[datetime, datetime]:
    """Two years from the day before the file's first event."""
    starts = []
    for event in calendar.walk("VEVENT"):
        try:
            start = event.decoded("DTSTART")
        except (KeyError, ValueError, TypeError):
            continue
        if isinstance(start, date):
            starts.append(instant(start))
    first = min(starts, default=FALLBACK_START).astimezone(ZONE)
    begin = datetime.combine(first.date() - timedelta(days=1), time(), ZONE)
    return begin, begin + SPAN


def reference(path: Path) -> tuple[datetime, datetime, Moments | str]:
    """The window, and the occurrences recurring_ical_events lists in it (or why it cannot)."""
    begin, end = FALLBACK_START, FALLBACK_START + SPAN
    try:
        calendar = icalendar.Calendar.from_ical(path.read_bytes())
        begin, end = window(calendar)
        found = recurring_ical_events.of(calendar).between(begin, end)
        moments = [(moment(e.decoded("DTSTART")), moment(e.decoded("DTEND"))) for e in found]
    except Exception as error:  # whatever the reference fails with, it cannot read the file
        return begin, end, f"{type(error).__name__}: {error}"
    return begin, end, sorted(moments)


def listed(found: list[Occurrence]) -> Moments:
    return sorted((moment(item.start), moment(item.end)) for item in found)


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Verdict]]:
    root = tmp_path_factory.mktemp("real-world")
    store = SettingsStore(root / "connectors")
    folders = [str(folder) for folder in shipped_folders()]
    store.save("calendar", CalendarSettings(time_zone="Europe/Berlin", ics_files=folders))
    library = CalendarLibrary(store, root / "cache.sqlite")
    library.refresh()
    found: dict[str, Verdict] = {}
    for ref in library.store.calendars():
        path = Path(ref.location)
        begin, end, expected = reference(path)
        occurrences, problems = library.occurrences(begin, end, ref.name)
        shown = [problem.describe() for problem in problems]
        found[path.name] = Verdict(path.name, expected, listed(occurrences), shown)
    yield found
    library.store.close()


def test_the_corpus_is_the_shipped_calendars_and_large_enough(verdicts: dict[str, Verdict]) -> None:
    on_disk = {p.name for folder in shipped_folders() for p in folder.glob("*.ics")}
    assert set(verdicts) == on_disk  # every file was seen as a calendar, none was left out
    assert len(verdicts) >= 100
    readable = [v for v in verdicts.values() if not isinstance(v.expected, str)]
    matching = [v for v in readable if v.listed == v.expected]
    problems = [v for v in verdicts.values() if v.problems]
    print(  # the numbers for the record: pytest -s
        f"\n{len(verdicts)} files; recurring_ical_events reads {len(readable)}, "
        f"with {sum(bool(v.expected) for v in readable)} holding occurrences in their window; "
        f"Hearth lists the same in {len(matching)}; {len(problems)} show a problem in Hearth"
    )


def test_hearth_lists_what_recurring_ical_events_lists(verdicts: dict[str, Verdict]) -> None:
    wrong = {
        v.name: {"missing": sorted(set(v.expected) - set(v.listed))[:3], "extra": v.listed[:3]}
        for v in verdicts.values()
        if not isinstance(v.expected, str) and v.name not in DIFFERENT and v.listed != v.expected
    }
    assert wrong == {}


def test_every_file_recurring_ical_events_cannot_read_shows_a_problem(
    verdicts: dict[str, Verdict],
) -> None:
    silent = {v.name: v.expected for v in verdicts.values() if isinstance(v.expected, str)}
    silent = {name: why for name, why in silent.items() if not verdicts[name].problems}
    assert silent == {}


@pytest.mark.parametrize("name", sorted(DIFFERENT))
def test_each_file_listed_as_different_still_differs_and_shows_a_problem(
    verdicts: dict[str, Verdict], name: str
) -> None:
    verdict = verdicts[name]
    assert not isinstance(verdict.expected, str), "recurring_ical_events cannot read it now"
    assert verdict.listed != verdict.expected, "it matches now; take it out of DIFFERENT"
    assert verdict.problems, DIFFERENT[name]
